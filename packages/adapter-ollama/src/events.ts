import type { Activity, ChatResult, StreamEvent } from '@toolbridge/core';
import type { OllamaChunk } from './client.js';
import { ReasoningSteps, type ReasoningThrottle } from './reasoning.js';

const DURATIONS = ['total_duration', 'load_duration', 'prompt_eval_duration', 'eval_duration'] as const;

/** Token counts of the final chunk, in Toolbridge's names. */
export function usageOf(final: OllamaChunk): Record<string, number> {
  const usage: Record<string, number> = {};
  if (Number.isInteger(final.prompt_eval_count)) usage.input_tokens = final.prompt_eval_count as number;
  if (Number.isInteger(final.eval_count)) usage.output_tokens = final.eval_count as number;
  return usage;
}

/** Timings (nanoseconds, as Ollama reports them) and why generation stopped. */
export function metadataOf(final: OllamaChunk): Record<string, unknown> {
  // Ollama is always reached over its HTTP API: health's `load.transport` says the same.
  const metadata: Record<string, unknown> = { transport: 'http' };
  for (const key of DURATIONS) if (typeof final[key] === 'number') metadata[key] = final[key];
  if (typeof final.done_reason === 'string') metadata.done_reason = final.done_reason;
  return metadata;
}

/** Ollama's generation options from the request's portable ones; absent when none is set. */
export function optionsOf(request: { maxTokens?: number; temperature?: number }): { options?: Record<string, number> } {
  const options: Record<string, number> = {};
  if (request.maxTokens !== undefined) options.num_predict = request.maxTokens;
  if (request.temperature !== undefined) options.temperature = request.temperature;
  return Object.keys(options).length > 0 ? { options } : {};
}

/**
 * Folds `/api/chat` chunks into stream events: content as deltas, `thinking` as reasoning
 * activity (throttled, see `ReasoningSteps`), and the final chunk's counts as the result.
 */
export class ChatAccumulator {
  private text = '';
  private readonly reasoning: ReasoningSteps;
  private answeredBy?: string;
  private final?: OllamaChunk;

  constructor(throttle?: ReasoningThrottle) {
    this.reasoning = new ReasoningSteps(throttle);
  }

  push(chunk: OllamaChunk): StreamEvent[] {
    const out: StreamEvent[] = [];
    const show = (activity: Activity | undefined) => void (activity && out.push({ type: 'activity', activity }));
    if (typeof chunk.model === 'string') this.answeredBy = chunk.model;
    const message = chunk.message as { content?: unknown; thinking?: unknown } | undefined;
    if (typeof message?.thinking === 'string') show(this.reasoning.push(message.thinking));
    if (typeof message?.content === 'string' && message.content.length > 0) {
      show(this.reasoning.complete());
      this.text += message.content;
      out.push({ type: 'delta', text: message.content });
    }
    if (chunk.done === true) {
      show(this.reasoning.complete());
      this.final = chunk;
    }
    return out;
  }

  /** The answer broke off: an open reasoning step ends as failed. */
  fail(): StreamEvent[] {
    const activity = this.reasoning.fail();
    return activity ? [{ type: 'activity', activity }] : [];
  }

  /** The result, once the final chunk has come (the client throws rather than end without it). */
  result(model: string): ChatResult {
    const last = this.final!;
    return {
      message: { role: 'assistant', content: this.text },
      usage: usageOf(last),
      model: this.answeredBy ?? model,
      metadata: metadataOf(last),
    };
  }
}
