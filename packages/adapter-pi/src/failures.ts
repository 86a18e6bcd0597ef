import { classifyFailure, type FailureFacts, type FailureTable } from '@toolbridge/adapter-kit';
import { type ToolbridgeError } from '@toolbridge/core';
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

const unknownStatus = (f: FailureFacts) => f.status === undefined;

/** Pi's failures: the status that leads the message decides; text heuristics only when there is none. */
const PI_FAILURES: FailureTable = {
  name: NAME,
  toolId: TOOL_ID,
  rules: [
    { class: 'auth', status: [401, 403] },
    { class: 'auth', match: AUTH_TEXT, when: unknownStatus },
    { class: 'quota', status: [429], match: QUOTA_TEXT },
    { class: 'rate_limit', status: [429] },
    { class: 'quota', match: QUOTA_TEXT, when: unknownStatus },
    { class: 'rate_limit', match: RATE_TEXT, when: unknownStatus },
    { class: 'timeout', status: [408, 504] },
    { class: 'timeout', match: TIMEOUT_TEXT, when: unknownStatus },
    // No status (a connection error), or the server's own failure: another try may well work.
    { class: 'transient', when: (f) => f.status === undefined || f.status >= 500 },
  ],
  messages: {
    auth: (f) =>
      `${NAME} is not authorised by its provider: ${f.text}. Log in with "/login" in an interactive "pi", or set the provider's API key.`,
    quota: (f) => `${NAME}'s provider quota is used up: ${f.text}`,
    rate_limit: (f) => `${NAME}'s provider is rate limiting: ${f.text}`,
    timeout: (f) => `${NAME}'s provider timed out: ${f.text}`,
  },
  retryAfterMs: (f) => resetMs(f.text),
};

/**
 * A Pi turn that ended with `stopReason:"error"` as a typed error, from its `errorMessage` (the only
 * thing Pi reports: no status field, no headers).
 */
export function classifyErrorMessage(raw: string): ToolbridgeError {
  const text = tail(raw.trim() || 'no message', 1000);
  const status = Number(STATUS.exec(text)?.[1] ?? NaN);
  const known = Number.isFinite(status);
  return classifyFailure({ text, ...(known ? { status, details: { statusCode: status } } : {}) }, PI_FAILURES);
}
