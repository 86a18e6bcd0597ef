import {
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  type ToolbridgeError,
} from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { NAME, TOOL_ID } from './config.js';

// Pi's OpenAI, Anthropic and Google clients put the HTTP status first: "429 Rate limit reached …" (measured).
const STATUS = /^\s*(\d{3})\b/;
const AUTH_TEXT =
  /unauthori[sz]ed|authentication|not logged in|no api key|(invalid|missing|incorrect)\b[^.]*\b(api[ _-]?key|token)|api[ _-]?key\b[^.]*\b(invalid|missing|required)/i;
const RATE_TEXT = /rate[ _-]?limit|too many requests/i;
const QUOTA_TEXT = /insufficient_quota|quota (exceeded|reached)|exceeded your (current )?quota|usage limit/i;
const TIMEOUT_TEXT = /timed? ?out|timeout/i;
/** "try again in 20s", "retry after 7 seconds", "resets in 3m". */
const RESET = /(?:try again|retry|resets?)\s+(?:in|after)\s+(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?|h|hours?)\b/i;

function resetMs(text: string): number | undefined {
  const m = RESET.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  const scale = unit === 'ms' ? 1 : unit.startsWith('h') ? 3_600_000 : unit.startsWith('m') && unit !== 'ms' ? 60_000 : 1000;
  return Math.round(n * scale);
}

/**
 * A Pi turn that ended with `stopReason:"error"` as a typed error, from its `errorMessage` (the only
 * thing Pi reports: no status field, no headers). The status that leads the message decides; text
 * heuristics only when there is none.
 */
export function classifyErrorMessage(raw: string): ToolbridgeError {
  const text = tail(raw.trim() || 'no message', 1000);
  const status = Number(STATUS.exec(text)?.[1] ?? NaN);
  const known = Number.isFinite(status);
  const details: Record<string, unknown> = known ? { statusCode: status } : {};
  const options = { toolId: TOOL_ID, details };
  if (status === 401 || status === 403 || (!known && AUTH_TEXT.test(text))) {
    return new ToolAuthError(
      `${NAME} is not authorised by its provider: ${text}. Log in with "/login" in an interactive "pi", or set the provider's API key.`,
      options,
    );
  }
  if (status === 429 || (!known && (RATE_TEXT.test(text) || QUOTA_TEXT.test(text)))) {
    const retryAfterMs = resetMs(text);
    const withReset = { ...options, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    if (QUOTA_TEXT.test(text)) return new QuotaExceededError(`${NAME}'s provider quota is used up: ${text}`, withReset);
    return new RateLimitError(`${NAME}'s provider is rate limiting: ${text}`, withReset);
  }
  if (status === 408 || status === 504 || (!known && TIMEOUT_TEXT.test(text))) {
    return new TimeoutError(`${NAME}'s provider timed out: ${text}`, options);
  }
  return new ProviderExecutionError(`${NAME} failed: ${text}`, { ...options, retryable: !known || status >= 500 });
}
