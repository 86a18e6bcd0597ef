import type { OllamaChunk } from './client.js';

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
  const metadata: Record<string, unknown> = {};
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
