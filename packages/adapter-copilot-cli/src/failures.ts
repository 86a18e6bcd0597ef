import { stripAnsi, type FailureFacts, type FailureTable } from '@toolbridge/adapter-kit';
import { tail } from '@toolbridge/core/runtime';
import { NAME, TOOL_ID } from './config.js';
import type { CallFailure, SessionError } from './events.js';

const UNIT_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** "reset in 1 hour" / "try again in 2s": how long the provider said to wait, in ms. */
export function waitMsOf(message: string): number | undefined {
  const words = /(?:reset|try again|retry)\s+in\s+(\d+(?:\.\d+)?)\s*(second|minute|hour|day)s?\b/i.exec(message);
  if (words) return Math.round(Number(words[1]) * UNIT_MS[words[2]!.toLowerCase()]!);
  const short = /(?:try again|retry)\s+in\s+(\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (short) return Math.round(Number(short[1]) * (short[2] === 'ms' ? 1 : 1000));
  return undefined;
}

const AUTH_HINT =
  'Run `copilot login` (or set COPILOT_GITHUB_TOKEN / GH_TOKEN / GITHUB_TOKEN with a fine-grained token); for your own model provider check COPILOT_PROVIDER_API_KEY.';

/** The message of a `model.call_failure`: its body's `message` when it is JSON. */
function callMessage(f: CallFailure): string {
  try {
    const body = JSON.parse(f.errorMessage) as unknown;
    if (typeof body === 'string') return body;
    const m =
      (body as { message?: unknown; error?: { message?: unknown } })?.message ??
      (body as { error?: { message?: unknown } })?.error?.message;
    if (typeof m === 'string') return m;
  } catch {
    // not JSON
  }
  return f.errorMessage;
}

/** The `code` in a `model.call_failure` body (`rate_limit_exceeded`, `user_weekly_rate_limited`, ...). */
function callCode(f: CallFailure): string | undefined {
  const m = /"code"\s*:\s*"([^"]+)"/.exec(f.errorMessage);
  return m?.[1];
}

/** A Copilot failure: a `session.error` (its type, HTTP status and code), and the clock a quota's reset is read by. */
export interface CopilotFacts extends FailureFacts {
  errorType?: string;
  errorCode?: string;
  now?: number;
}

/** The facts of Copilot's `session.error` (or an "Error: …" answer of its ACP server). */
export function sessionErrorFacts(e: SessionError, context: { now?: number } = {}): CopilotFacts {
  const { errorType, errorCode, statusCode: status } = e;
  return {
    text: e.message.trim(),
    status,
    errorType,
    errorCode,
    now: context.now,
    details: { errorType, ...(status ? { statusCode: status } : {}) },
  };
}

const TYPE_OF_STATUS: Record<number, string> = { 401: 'authentication', 403: 'authentication', 402: 'quota', 429: 'rate_limit' };

/** A failed model call Copilot was about to retry, as the `session.error` it would have ended with. */
export function callFailureFacts(f: CallFailure, context: { now?: number } = {}): CopilotFacts {
  const status = f.statusCode || undefined;
  const errorType = (status && TYPE_OF_STATUS[status]) || (f.failureKind === 'transport' ? 'transport' : 'query');
  const message = status ? `${status} ${callMessage(f)}` : callMessage(f);
  return sessionErrorFacts({ errorType, message, statusCode: status, errorCode: callCode(f) }, context);
}

/**
 * Copilot's session errors, its `errorType` first. Weekly and monthly allowances and premium
 * requests used up are quotas (with the time they reset); other rate limits are rate limits.
 */
export const COPILOT_FAILURES: FailureTable<CopilotFacts> = {
  name: NAME,
  toolId: TOOL_ID,
  rules: [
    { class: 'auth', when: (f) => f.errorType === 'authentication' || f.errorType === 'authorization' },
    { class: 'auth', status: [401, 403] },
    { class: 'quota', when: (f) => f.errorType === 'quota' || /weekly|monthly|quota/i.test(f.errorCode ?? '') },
    { class: 'quota', status: [402] },
    { class: 'rate_limit', when: (f) => f.errorType === 'rate_limit' },
    { class: 'rate_limit', status: [429] },
    { class: 'transient', when: (f) => (f.status ?? 0) >= 500 },
    { class: 'transient', match: /retried \d+ times|Could not connect|connection closed|timed? ?out/i },
  ],
  messages: { auth: (f) => `${NAME} is not signed in or was refused: ${f.text} ${AUTH_HINT}` },
  resetsAt: (f, kind) => {
    const waitMs = kind === 'quota' ? waitMsOf(f.text) : undefined;
    return waitMs !== undefined ? new Date((f.now ?? Date.now()) + waitMs) : undefined;
  },
  retryAfterMs: (f, kind) => (kind === 'rate_limit' ? waitMsOf(f.text) : undefined),
};

/**
 * A run that printed no events: start-up failures Copilot reports as plain text on stderr
 * (not signed in, no model for a custom provider, an unknown session to resume).
 */
export function startupFacts(stderr: string, exitCode: number | null): FailureFacts {
  const text = tail(stripAnsi(stderr).trim(), 2000);
  return { text, exitCode, details: { exitCode, stderrTail: text } };
}

const TOKEN_UNCHECKED = /Authentication token found but could not be validated/i;

/** Copilot's start-up failures, by what it printed. */
export const COPILOT_STARTUP_FAILURES: FailureTable = {
  name: NAME,
  toolId: TOOL_ID,
  rules: [
    {
      class: 'auth',
      match: /No authentication information found|Offline mode requires a local model provider/i,
      message: (f) => `${NAME} is not signed in: ${f.text.split('\n')[0]} ${AUTH_HINT}`,
    },
    // Copilot itself says the token may be fine and the network the problem.
    {
      class: 'transient',
      match: TOKEN_UNCHECKED,
      when: (f) => /network|fetch failed|error sending request/i.test(f.text),
      message: (f) => `${NAME} could not reach GitHub to check its token: ${f.text}`,
    },
    { class: 'auth', match: TOKEN_UNCHECKED, message: (f) => `${NAME} has a token GitHub did not accept: ${f.text} ${AUTH_HINT}` },
  ],
  messages: { failed: (f) => `${NAME} failed: ${f.text || `exited with code ${f.exitCode}`}` },
};
