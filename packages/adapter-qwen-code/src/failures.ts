import { endedWithoutResult, type FailureFacts, type FailureTable, type LineProcessExit } from '@toolbridge/adapter-kit';
import { tail } from '@toolbridge/core/runtime';
import { NAME, TOOL_ID } from './config.js';

/** A failed turn: the result's error message, if there was a result, and how the process ended. */
export interface QwenFailure extends FailureFacts {
  /** The result's error message, whole; absent for a run that ended without a result. */
  message?: string;
  exit: LineProcessExit;
  /** It printed lines, none of them stream-json. */
  notStreamJson: boolean;
}

/** Qwen Code's failed model call, as it writes it in the result's `error.message`: `[API Error: 429 Rate limit reached]`. */
const API_ERROR = /\[API Error: (?:(\d{3}) )?([^\]\n]*)\]?/;

/**
 * The facts of a failed turn: the status in Qwen Code's `[API Error: N …]` text and the text after
 * it; without a result, its stderr (less the ripgrep notice it prints on every start).
 */
export function qwenFailure(message: string | undefined, exit: LineProcessExit, notStreamJson = false): QwenFailure {
  if (message === undefined) {
    const lines = exit.stderrTail.split('\n').filter((l) => !l.startsWith('Ripgrep not available'));
    const details = { exitCode: exit.exitCode, signal: exit.signal, stderrTail: exit.stderrTail };
    return { text: tail(lines.join('\n'), 600), exit, notStreamJson, details };
  }
  const m = API_ERROR.exec(message);
  const status = m?.[1] ? Number(m[1]) : undefined;
  const text = (m?.[2] ?? message).trim() || 'unknown error';
  return {
    text,
    message,
    exit,
    notStreamJson,
    ...(status !== undefined ? { status } : {}),
    details: { apiErrorStatus: status, exitCode: exit.exitCode },
  };
}

/** `--resume` of a session Qwen Code does not have here: it exits 1 at once with this on stderr. */
const missingSession = (f: QwenFailure) =>
  /No saved session found with ID:? (\S+?)\.?\s/.exec(`${f.message ?? ''}\n${f.exit.stderrTail} `)?.[1];
/** Start-up refusals of a sign-in without its key ("Missing API key for OpenAI-compatible auth. Set …"). */
const SIGNED_OUT = /missing api key|no api key|api key (is )?(not set|required)|please set an auth method/i;
const QUOTA = /quota|insufficient_quota|billing|exceeded your current/i;
const firstLine = (s: string) => s.split('\n')[0]!.slice(0, 300);

/** A reset the provider's message names ("try again in 20s", "resets at 2026-…"), when it does. */
function resetIn(text: string, now = Date.now()): Date | undefined {
  const secs = /try again in (\d+(?:\.\d+)?)\s*(ms|s|seconds?|m|minutes?)\b/i.exec(text);
  if (secs) {
    const n = Number(secs[1]);
    const unit = secs[2]!.toLowerCase();
    return new Date(now + (unit === 'ms' ? n : unit.startsWith('m') ? n * 60_000 : n * 1000));
  }
  const at = /resets? at ([0-9TZ:.+-]{10,})/i.exec(text);
  const date = at ? new Date(at[1]!) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

function crash(f: QwenFailure): string {
  return `${endedWithoutResult(NAME, f.exit, f.notStreamJson ? 'stream-json' : undefined)}${f.text ? `: ${f.text}` : ''}`;
}

/**
 * Qwen Code's failures, by the status in its `[API Error: N …]` text: 401/403 → auth, 429 → rate
 * limit (a quota when the provider says so), 5xx → retryable. Qwen Code has already retried 429 and
 * 5xx itself (7 attempts, backing off up to 30 s; 0.24.4 has no setting that turns this off), so a
 * 429 or 5xx that reaches here is its last answer.
 */
export const QWEN_FAILURES: FailureTable<QwenFailure> = {
  name: NAME,
  toolId: TOOL_ID,
  rules: [
    {
      class: 'session_missing',
      when: (f) => missingSession(f) !== undefined,
      message: (f) =>
        `${NAME} has no session ${missingSession(f)} for this working directory (its sessions are kept per directory, and the transcript may be gone); continue it from the directory it began in, or start a new session`,
      details: (f) => ({ exitCode: f.exit.exitCode }),
    },
    {
      class: 'auth',
      when: (f) => f.status === undefined && SIGNED_OUT.test(f.message ?? f.text),
      message: (f) => `${NAME} is not signed in: ${f.message === undefined ? f.text : firstLine(f.message)}`,
    },
    { class: 'failed', when: (f) => f.message === undefined, message: crash },
    { class: 'auth', status: [401, 403] },
    { class: 'quota', status: [429], match: QUOTA },
    { class: 'rate_limit', status: [429] },
    { class: 'transient', when: (f) => (f.status ?? 0) >= 500 },
  ],
  messages: {
    auth: (f) => `${NAME} could not authenticate: ${f.text}`,
    quota: (f) => `${NAME} quota exceeded: ${f.text}`,
    rate_limit: (f) => `${NAME} rate limited: ${f.text}`,
  },
  resetsAt: (f) => resetIn(f.message ?? ''),
};
