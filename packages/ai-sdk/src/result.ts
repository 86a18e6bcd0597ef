import type { JSONObject, LanguageModelV4FinishReason, LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { Attempt, ChatResponse, FallbackChatResponse, Usage } from 'toolbridge';

/**
 * Tool-specific integer counts as the AI SDK's usage. The sums follow the bridge's
 * `toOpenAIUsage`: Codex counts cached input inside `input_tokens` (`cached_input_tokens` is a
 * part of it), Claude Code counts cache reads and writes beside it. Counts a tool does not report
 * stay `undefined` rather than a made-up 0; `raw` keeps the tool's own keys.
 */
export function toUsage(usage: Usage | undefined): LanguageModelV4Usage {
  const u = usage ?? {};
  const n = (key: string) => (typeof u[key] === 'number' && Number.isFinite(u[key]) && u[key]! >= 0 ? u[key] : undefined);
  const sum = (...values: Array<number | undefined>) =>
    values.some((v) => v !== undefined) ? values.reduce<number>((a, v) => a + (v ?? 0), 0) : undefined;
  const input = n('input_tokens');
  const cacheReadBeside = n('cache_read_input_tokens');
  const cacheWrite = n('cache_creation_input_tokens') ?? n('cache_write_input_tokens');
  const total = sum(input, cacheReadBeside, n('cache_creation_input_tokens'));
  const cacheRead = sum(n('cached_input_tokens'), cacheReadBeside);
  const output = n('output_tokens');
  const reasoning = n('reasoning_output_tokens');
  return {
    inputTokens: {
      total,
      noCache: total === undefined ? undefined : total - (cacheRead ?? 0) - (n('cache_creation_input_tokens') ?? 0),
      cacheRead,
      cacheWrite,
    },
    outputTokens: {
      total: output,
      text: output !== undefined && reasoning !== undefined ? output - reasoning : undefined,
      reasoning,
    },
    raw: { ...u },
  };
}

/**
 * How the answer ended. Tools report it under their own names (Ollama `done_reason`, Claude Code
 * `stopReason`, OpenCode `finishReason`); a truncated answer is `length`, anything else that
 * produced an answer is `stop`.
 */
export function toFinishReason(metadata: Record<string, unknown> | undefined): LanguageModelV4FinishReason {
  const m = metadata ?? {};
  const raw = [m.done_reason, m.stopReason, m.finishReason].find((v): v is string => typeof v === 'string');
  const r = raw?.toLowerCase() ?? '';
  const unified = /length|max_tokens|max_output/.test(r)
    ? 'length'
    : /content_filter|content-filter|refusal/.test(r)
      ? 'content-filter'
      : 'stop';
  return { unified, raw };
}

/** JSON only: undefined fields dropped, non-JSON values (Dates, functions) turned into JSON or left out. */
function json(value: unknown): JSONObject {
  return JSON.parse(JSON.stringify(value ?? {})) as JSONObject;
}

/**
 * `providerMetadata.toolbridge`: which tool answered with which model, the session to continue,
 * the attempts (one for a single tool) and whether a fallback answered, plus the tool's own facts
 * (cost, turns, transport) under `toolMetadata`.
 */
export function toProviderMetadata(response: ChatResponse | FallbackChatResponse): SharedV4ProviderMetadata {
  const fallback = 'attempts' in response;
  const attempts: Attempt[] = fallback
    ? response.attempts
    : [{ toolId: response.toolId, tryIndex: 0, stage: 'execution', outcome: 'succeeded', latencyMs: response.latencyMs }];
  return {
    toolbridge: json({
      toolId: response.toolId,
      model: response.model,
      ...(response.sessionId ? { sessionId: response.sessionId } : {}),
      attempts,
      fallbackUsed: fallback ? response.fallbackUsed : false,
      latencyMs: response.latencyMs,
      ...(response.result.metadata ? { toolMetadata: response.result.metadata } : {}),
    }),
  };
}
