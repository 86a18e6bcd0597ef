import { stripAnsi } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError, type ToolbridgeError } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { NAME, TOOL_ID } from './config.js';
import type { CallFailure, SessionError } from './events.js';

export interface FailureContext {
  exitCode?: number | null;
  stderrTail?: string;
  now?: number;
}

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

/**
 * Map Copilot's `session.error` (its `errorType` first) to a typed error. Weekly and monthly
 * allowances and premium requests used up are quotas; other rate limits are rate limits.
 */
export function classifySessionError(e: SessionError, context: FailureContext = {}): ToolbridgeError {
  const details: Record<string, unknown> = { errorType: e.errorType, ...(e.statusCode ? { statusCode: e.statusCode } : {}) };
  if (context.exitCode !== undefined && context.exitCode !== null) details.exitCode = context.exitCode;
  const opts = { toolId: TOOL_ID, details };
  const text = e.message.trim();
  const waitMs = waitMsOf(text);
  const type = e.errorType ?? '';
  if (type === 'authentication' || type === 'authorization' || e.statusCode === 401 || e.statusCode === 403) {
    return new ToolAuthError(`${NAME} is not signed in or was refused: ${text} ${AUTH_HINT}`, opts);
  }
  if (type === 'quota' || e.statusCode === 402 || /weekly|monthly|quota/i.test(e.errorCode ?? '')) {
    return new QuotaExceededError(`${NAME} quota exhausted: ${text}`, {
      ...opts,
      ...(waitMs !== undefined ? { resetsAt: new Date((context.now ?? Date.now()) + waitMs) } : {}),
    });
  }
  if (type === 'rate_limit' || e.statusCode === 429) {
    return new RateLimitError(`${NAME} was rate limited: ${text}`, { ...opts, ...(waitMs !== undefined ? { retryAfterMs: waitMs } : {}) });
  }
  const transient =
    (e.statusCode !== undefined && e.statusCode >= 500) || /retried \d+ times|Could not connect|connection closed|timed? ?out/i.test(text);
  return new ProviderExecutionError(`${NAME} failed: ${text || 'no error message'}`, { ...opts, retryable: transient });
}

/** A failed model call Copilot was about to retry, as the error it would have ended with. */
export function classifyCallFailure(f: CallFailure, context: FailureContext = {}): ToolbridgeError {
  const message = callMessage(f);
  const code = callCode(f);
  const status = f.statusCode;
  const errorType =
    status === 401 || status === 403
      ? 'authentication'
      : status === 402
        ? 'quota'
        : status === 429
          ? 'rate_limit'
          : f.failureKind === 'transport'
            ? 'transport'
            : 'query';
  const text = status ? `${status} ${message}` : message;
  return classifySessionError(
    { errorType, message: text, ...(status ? { statusCode: status } : {}), ...(code ? { errorCode: code } : {}) },
    context,
  );
}

/**
 * A run that printed no events: start-up failures Copilot reports as plain text on stderr
 * (not signed in, no model for a custom provider, an unknown session to resume).
 */
export function classifyStartupFailure(stderr: string, exitCode: number | null): ToolbridgeError {
  const text = tail(stripAnsi(stderr).trim(), 2000);
  const details = { exitCode, stderrTail: text };
  const opts = { toolId: TOOL_ID, details };
  if (/No authentication information found|Offline mode requires a local model provider/i.test(text)) {
    return new ToolAuthError(`${NAME} is not signed in: ${text.split('\n')[0]} ${AUTH_HINT}`, opts);
  }
  if (/Authentication token found but could not be validated/i.test(text)) {
    // Copilot itself says the token may be fine and the network the problem.
    const network = /network|fetch failed|error sending request/i.test(text);
    return network
      ? new ProviderExecutionError(`${NAME} could not reach GitHub to check its token: ${text}`, { ...opts, retryable: true })
      : new ToolAuthError(`${NAME} has a token GitHub did not accept: ${text} ${AUTH_HINT}`, opts);
  }
  return new ProviderExecutionError(`${NAME} failed: ${text || `exited with code ${exitCode}`}`, opts);
}
