import type { Usage } from './wire/common.js';

/** A tool's usage in common terms; a count the tool did not report stays undefined, never a made-up 0. */
export interface UsageTotals {
  /** Every input token, cached or not. */
  input?: number;
  /** Input tokens served from a cache (part of `input`). */
  cacheRead?: number;
  /** Input tokens written to a cache (part of `input`). */
  cacheWrite?: number;
  /** Every output token, reasoning included. */
  output?: number;
  /** Reasoning tokens (part of `output`). */
  reasoning?: number;
}

/**
 * Tools report usage in their own keys, and they do not add up the same way:
 * - Codex and OpenCode (OpenAI style) count cached input INSIDE `input_tokens`;
 *   `cached_input_tokens` and `cache_write_input_tokens` are parts of it.
 * - Claude Code (Anthropic style) counts `cache_read_input_tokens` and `cache_creation_input_tokens`
 *   BESIDE `input_tokens`, so the total input is their sum.
 * - `output_tokens` includes reasoning; `reasoning_output_tokens` is a part of it.
 * The one reading of those keys, for the bridge's OpenAI usage and the AI SDK provider's.
 */
export function usageTotals(usage: Usage | undefined): UsageTotals {
  const n = (key: string) => {
    const v = usage?.[key];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
  };
  const sum = (...values: Array<number | undefined>) =>
    values.some((v) => v !== undefined) ? values.reduce<number>((a, v) => a + (v ?? 0), 0) : undefined;
  const cacheReadBeside = n('cache_read_input_tokens');
  const cacheWriteBeside = n('cache_creation_input_tokens');
  const out: UsageTotals = {
    input: sum(n('input_tokens'), cacheReadBeside, cacheWriteBeside),
    cacheRead: sum(n('cached_input_tokens'), cacheReadBeside),
    cacheWrite: sum(n('cache_write_input_tokens'), cacheWriteBeside),
    output: n('output_tokens'),
    reasoning: n('reasoning_output_tokens'),
  };
  for (const k of Object.keys(out) as Array<keyof UsageTotals>) if (out[k] === undefined) delete out[k];
  return out;
}
