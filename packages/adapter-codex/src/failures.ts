import { type FailureFacts, type FailureTable } from '@toolbridge/adapter-kit';
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
/** Overload and server errors: a retry may well succeed. */
const TRANSIENT = /high demand|\b5\d\d\b|temporar|overloaded|try again/i;

/** A Codex failure: its message (a `turn.failed`/`error` event, an app-server error, or stderr), and the clock its reset times are read by. */
export interface CodexFacts extends FailureFacts {
  now?: Date;
}

/** The facts of a failure message, with the run's exit code and stderr tail when there were no events. */
export function codexFacts(message: string, context: { stderrTail?: string; exitCode?: number | null; now?: Date } = {}): CodexFacts {
  const { stderrTail, exitCode, now } = context;
  const stderr = stderrTail ? tail(cleanStderr(stderrTail), 2000) : '';
  return { text: message.trim(), stderr, now, details: exitCode !== undefined && exitCode !== null ? { exitCode } : {} };
}

/** Codex's failures: structured messages by their words; anything else is a failure with the stderr tail. */
export const CODEX_FAILURES: FailureTable<CodexFacts> = {
  name: 'Codex',
  toolId: TOOL_ID,
  rules: [
    {
      class: 'session_missing',
      match: NO_THREAD,
      message: () =>
        'Codex cannot continue this conversation: its own record of the session is gone (deleted from $CODEX_HOME/sessions, or never written). Start a new session.',
      // The thread id is Codex's own: kept for logs, never shown to callers.
      details: (f) => ({ ...f.details, codexError: f.text }),
    },
    { class: 'quota', match: USAGE_LIMIT, message: (f) => `Codex usage limit reached: ${f.text}` },
    { class: 'rate_limit', match: RATE_LIMIT },
    { class: 'auth', match: AUTH, message: (f) => `Codex is not authenticated: ${f.text}. Run \`codex login\` (or configure an API key).` },
    { class: 'transient', match: TRANSIENT },
  ],
  resetsAt: (f, kind) => (kind === 'quota' ? parseRetryAt(f.text, f.now) : undefined),
};

/** stderr without the lines every Codex run prints (home alias warning, stdin notice). */
export function cleanStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !/^WARNING: proceeding, even though we could not create PATH aliases/.test(l))
    .filter((l) => !/^Reading (?:additional input|prompt) from stdin/.test(l))
    .join('\n')
    .trim();
}
