import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError, type ToolbridgeError } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';

export { TOOL_ID } from './config.js';
import { TOOL_ID } from './config.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * The reset time in Codex's usage-limit message. Codex formats it in its own
 * local time zone, as `5:15 AM` (today, or tomorrow if that has passed) or as
 * `Nov 25th, 2026 3:35 PM`; we read it in this process's zone, which is the
 * same one unless the caller gave the child a different `TZ`.
 */
export function parseRetryAt(message: string, now: Date = new Date()): Date | undefined {
  const m = /try again at\s+(?:([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\s+)?(\d{1,2}):(\d{2})\s*([AaPp][Mm])/i.exec(
    message,
  );
  if (!m) return undefined;
  let hour = Number(m[4]) % 12;
  if (m[6]!.toLowerCase() === 'pm') hour += 12;
  const minute = Number(m[5]);
  if (m[1]) {
    const month = MONTHS.indexOf(m[1].toLowerCase());
    if (month < 0) return undefined;
    return new Date(Number(m[3]), month, Number(m[2]), hour, minute);
  }
  const at = new Date(now.getFullYear(), now.getMonth(), now.getDate(), hour, minute);
  // A bare time names the next time the clock shows it.
  if (at.getTime() <= now.getTime() - 60_000) at.setDate(at.getDate() + 1);
  return at;
}

/** `exec resume`/`fork` of a thread whose rollout file is gone: "thread/resume failed: no rollout found for thread id <id>". */
const NO_THREAD = /no rollout found for thread id|thread not found:/i;
const USAGE_LIMIT = /usage limit|usage_limit_reached|purchase more credits|usage_not_included/i;
const RATE_LIMIT = /\b429\b|too many requests|rate[ _-]?limit/i;
const AUTH =
  /\b401\b|unauthori[sz]ed|not logged in|invalid[ _-]api[ _-]key|incorrect api key|authentication|please (?:run )?`?codex login|missing environment variable|token (?:has )?expired|refresh token/i;

export interface FailureContext {
  stderrTail?: string;
  exitCode?: number | null;
  now?: Date;
}

/**
 * Map a failure message from Codex (a `turn.failed`/`error` event, or stderr
 * when there were no events) to a typed error. Structured messages first,
 * then the stderr tail, then a generic execution failure.
 */
export function classifyFailure(message: string, context: FailureContext = {}): ToolbridgeError {
  const details: Record<string, unknown> = {};
  if (context.exitCode !== undefined && context.exitCode !== null) details.exitCode = context.exitCode;
  const stderr = context.stderrTail ? tail(cleanStderr(context.stderrTail), 2000) : '';
  if (stderr) details.stderrTail = stderr;
  const text = message.trim();

  if (NO_THREAD.test(text)) {
    // The thread id is Codex's own: kept for logs, never shown to callers.
    return new ProviderExecutionError(
      'Codex cannot continue this conversation: its own record of the session is gone (deleted from $CODEX_HOME/sessions, or never written). Start a new session.',
      { toolId: TOOL_ID, details: { ...details, codexError: text }, publicDetails: { reason: 'native_session_missing' } },
    );
  }
  if (USAGE_LIMIT.test(text)) {
    const resetsAt = parseRetryAt(text, context.now);
    return new QuotaExceededError(`Codex usage limit reached: ${text}`, { toolId: TOOL_ID, resetsAt, details });
  }
  if (RATE_LIMIT.test(text)) {
    return new RateLimitError(`Codex was rate limited: ${text}`, { toolId: TOOL_ID, details });
  }
  if (AUTH.test(text)) {
    return new ToolAuthError(`Codex is not authenticated: ${text}. Run \`codex login\` (or configure an API key).`, {
      toolId: TOOL_ID,
      details,
    });
  }
  const suffix = stderr && !text.includes(stderr) ? `\n${stderr}` : '';
  return new ProviderExecutionError(`Codex failed: ${text || 'no error message'}${suffix}`, {
    toolId: TOOL_ID,
    details,
    // Overload and server errors pass; a retry may well succeed.
    retryable: /high demand|\b5\d\d\b|temporar|overloaded|try again/i.test(text),
  });
}

/** stderr without the lines every Codex run prints (home alias warning, stdin notice). */
export function cleanStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !/^WARNING: proceeding, even though we could not create PATH aliases/.test(l))
    .filter((l) => !/^Reading (?:additional input|prompt) from stdin/.test(l))
    .join('\n')
    .trim();
}
