import { parseJsonLine } from '@toolbridge/adapter-kit';
import { type ChatResult, type StreamEvent, type ToolbridgeError } from '@toolbridge/core';
import { ActivityTracker } from './activity.js';
import { classifyError, errorInfoOf } from './failures.js';

/** Token counts as OpenCode reports them on `step_finish` (input without cache, output without reasoning). */
interface StepTokens {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Text parts of one answer are separate paragraphs (e.g. before and after a tool call). */
const PART_SEPARATOR = '\n\n';

/**
 * Folds the JSONL events of `opencode run --format json` into stream events
 * and, at the end, one chat result. Each `text` event is a completed text
 * part, so it is passed on as one delta.
 */
export class RunAccumulator {
  private text = '';
  private textParts = 0;
  private readonly tokens: StepTokens = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  private steps = 0;
  private cost = 0;
  private sawCost = false;
  private finishReason: string | undefined;
  private sessionId: string | undefined;
  /** The first error event: it says why the run failed. */
  error: ToolbridgeError | undefined;
  unrecognisedLines = 0;
  /** Tool calls OpenCode auto-rejected (an `ask` rule nobody could answer). */
  refusals = 0;
  private unnamed = 0;
  private readonly activity = new ActivityTracker();

  get sawText(): boolean {
    return this.textParts > 0;
  }

  accept(line: string): StreamEvent[] {
    if (line.trim() === '') return [];
    const event = parseJsonLine(line);
    if (!event || typeof event.type !== 'string') {
      this.unrecognisedLines++;
      return [];
    }
    if (typeof event.sessionID === 'string') this.sessionId ??= event.sessionID;
    const part = record(event.part);
    switch (event.type) {
      case 'text': {
        const text = typeof part.text === 'string' ? part.text : '';
        if (text.length === 0) return [];
        const delta = this.textParts > 0 ? PART_SEPARATOR + text : text;
        this.textParts++;
        this.text += delta;
        return [{ type: 'delta', text: delta }];
      }
      case 'reasoning':
        // `run` prints a reasoning part once, when it has ended.
        return this.activities({ ...part, time: { end: event.timestamp ?? 0, ...record(part.time) } });
      case 'tool_use': {
        const error = record(part.state).error;
        if (typeof error === 'string' && /rejected permission/i.test(error)) this.refusals++;
        return this.activities(part);
      }
      case 'step_finish':
        this.addStep(part);
        return [];
      case 'error':
        this.error ??= classifyError(errorInfoOf(event));
        return [];
      case 'step_start':
        return [];
      default:
        // Event types of newer versions: passed on, never dropped silently.
        return [
          {
            type: 'activity',
            activity: { id: `event-${++this.unnamed}`, kind: 'other', status: 'completed', title: event.type, rawType: event.type },
          },
        ];
    }
  }

  private activities(part: Record<string, unknown>): StreamEvent[] {
    return this.activity.accept(part).map((activity) => ({ type: 'activity', activity }));
  }

  private addStep(part: Record<string, unknown>): void {
    this.steps++;
    if (typeof part.reason === 'string') this.finishReason = part.reason;
    if (typeof part.cost === 'number' && Number.isFinite(part.cost)) {
      this.cost += part.cost;
      this.sawCost = true;
    }
    const t = record(part.tokens);
    const cache = record(t.cache);
    const input = int(t.input);
    const output = int(t.output);
    const reasoning = int(t.reasoning);
    const cacheRead = int(cache.read);
    const cacheWrite = int(cache.write);
    this.tokens.input += input;
    this.tokens.output += output;
    this.tokens.reasoning += reasoning;
    this.tokens.cacheRead += cacheRead;
    this.tokens.cacheWrite += cacheWrite;
    this.tokens.total += Number.isInteger(t.total) ? (t.total as number) : input + output + reasoning + cacheRead + cacheWrite;
  }

  /**
   * Usage in the OpenAI-style terms the other adapters use: `input_tokens`
   * includes cached input and `output_tokens` includes reasoning; OpenCode
   * reports those parts apart.
   */
  usage(): Record<string, number> {
    if (this.steps === 0) return {};
    const t = this.tokens;
    return {
      input_tokens: t.input + t.cacheRead + t.cacheWrite,
      cached_input_tokens: t.cacheRead,
      cache_write_input_tokens: t.cacheWrite,
      output_tokens: t.output + t.reasoning,
      reasoning_output_tokens: t.reasoning,
      total_tokens: t.total,
    };
  }

  result(model: string | undefined): ChatResult {
    const metadata: Record<string, unknown> = { steps: this.steps };
    if (this.sessionId) metadata.nativeSessionId = this.sessionId;
    if (this.finishReason) metadata.finishReason = this.finishReason;
    if (this.sawCost) metadata.costUsd = this.cost;
    return {
      message: { role: 'assistant', content: this.text },
      usage: this.usage(),
      ...(model ? { model } : {}),
      metadata,
    };
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function int(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}
