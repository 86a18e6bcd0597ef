import type { JSONObject, LanguageModelV4FinishReason, LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { usageTotals, type Attempt, type ChatResponse, type FallbackChatResponse, type Usage } from 'toolbridge';

/**
 * Tool-specific integer counts as the AI SDK's usage (core's usageTotals reads the tools' own keys,
 * as the bridge's OpenAI usage does). Counts a tool does not report stay `undefined` rather than a
 * made-up 0; `raw` keeps the tool's own keys.
 */
export function toUsage(usage: Usage | undefined): LanguageModelV4Usage {
  const t = usageTotals(usage);
  const minus = (a: number | undefined, ...b: Array<number | undefined>) =>
    a === undefined ? undefined : a - b.reduce<number>((s, v) => s + (v ?? 0), 0);
  return {
    inputTokens: { total: t.input, noCache: minus(t.input, t.cacheRead, t.cacheWrite), cacheRead: t.cacheRead, cacheWrite: t.cacheWrite },
    outputTokens: { total: t.output, text: t.reasoning === undefined ? undefined : minus(t.output, t.reasoning), reasoning: t.reasoning },
    raw: { ...(usage ?? {}) },
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
