import { endedWithoutResult, type FailureFacts, type FailureTable, type LineProcessExit } from '@toolbridge/adapter-kit';
import { tail } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';
import { exhaustedWindow, type RateLimitInfo } from './usage-limits.js';

/** What Claude Code said about a failed API call, from the assistant error event and the result. */
export interface ApiFailure {
  error?: string;
  status?: number;
  apiError?: string;
  message?: string;
  rateLimit?: RateLimitInfo;
  terminalReason?: string;
}

/** A failed run: the API failure Claude Code reported, if it did, and how the process ended. */
export interface ClaudeFailure extends FailureFacts, ApiFailure {
  /** False for a run that ended without a result or an API error: a start-up refusal, or a crash. */
  reported: boolean;
  exit: LineProcessExit;
  /** It printed lines, none of them stream-json. */
  notStreamJson: boolean;
}

/**
 * The facts of a failed run: structured fields first (the assistant event's `error`,
 * `api_error_status`, `api_error`), the message text last; without them, its stderr.
 */
export function claudeFailure(api: ApiFailure | undefined, exit: LineProcessExit, notStreamJson = false): ClaudeFailure {
  if (!api) {
    const details = { exitCode: exit.exitCode, signal: exit.signal, stderrTail: exit.stderrTail };
    return { text: exit.stderrTail, reported: false, exit, notStreamJson, details };
  }
  const details = {
    apiErrorStatus: api.status,
    apiError: api.apiError,
    error: api.error,
    exitCode: exit.exitCode,
    terminalReason: api.terminalReason,
  };
  return { ...api, text: api.message ?? 'unknown error', reported: true, exit, notStreamJson, details };
}

/** `--resume` of a session Claude Code does not have (any more): it answers at once, with this text. */
const missingSession = (f: ClaudeFailure) =>
  /No conversation found with session ID: (\S+)/.exec(`${f.message ?? ''}\n${f.exit.stderrTail}`)?.[1];
const ROOT_REFUSAL = /cannot be used with root\/sudo privileges/;
const NOT_LOGGED_IN = /not logged in/i;
const exhausted = (f: ClaudeFailure) => (f.rateLimit ? exhaustedWindow(f.rateLimit) : undefined);
const withStderr = (f: ClaudeFailure) => ({ ...f.details, stderrTail: f.exit.stderrTail });

function resetOf(info: RateLimitInfo | undefined): Date | undefined {
  const s = info?.resetsAt;
  return typeof s === 'number' && s > 0 ? new Date(s * 1000) : undefined;
}

function failed(f: ClaudeFailure): string {
  const stderr = tail(f.exit.stderrTail, 600);
  return `Claude Code failed: ${f.text}${stderr ? ` (stderr: ${stderr})` : ''}`;
}

function crash(f: ClaudeFailure): string {
  const stderr = tail(f.exit.stderrTail, 600);
  return `${endedWithoutResult('Claude Code', f.exit, f.notStreamJson ? 'stream-json' : undefined)}${stderr ? `: ${stderr}` : ''}`;
}

/** Claude Code's failures: a missing session first, then start-up refusals and crashes, then the API's. */
export const CLAUDE_FAILURES: FailureTable<ClaudeFailure> = {
  name: 'Claude Code',
  toolId: TOOL_ID,
  rules: [
    {
      class: 'session_missing',
      when: (f) => missingSession(f) !== undefined,
      message: (f) =>
        `Claude Code no longer has the session ${missingSession(f)} this conversation continues (its transcript was deleted or moved); start a new session`,
      details: (f) => ({ exitCode: f.exit.exitCode }),
    },
    {
      class: 'failed',
      match: ROOT_REFUSAL,
      when: (f) => !f.reported,
      reason: 'bypass_refused_as_root',
      message: () =>
        'Claude Code refuses to bypass its permission checks when run as root (full permissions); run Toolbridge as another user, or set IS_SANDBOX=1 if this really is a sandbox',
    },
    { class: 'failed', when: (f) => !f.reported, message: crash },
    { class: 'auth', when: (f) => f.error === 'authentication_failed' || f.status === 401 },
    { class: 'auth', match: NOT_LOGGED_IN },
    { class: 'quota', when: (f) => f.apiError === 'usage_limit_reached' || exhausted(f) !== undefined },
    { class: 'rate_limit', status: [429, 529] },
    { class: 'rate_limit', when: (f) => f.error === 'rate_limit' },
    { class: 'transient', when: (f) => (f.status ?? 0) >= 500 || f.apiError === 'connection_failed', details: withStderr },
    { class: 'failed', details: withStderr },
  ],
  messages: {
    auth: (f) =>
      `Claude Code could not authenticate: ${f.text}.${NOT_LOGGED_IN.test(f.text) ? ' Run `claude auth login` (or set ANTHROPIC_API_KEY).' : ''}`,
    quota: (f) => `Claude Code usage limit reached: ${f.text}`,
    rate_limit: (f) => `Claude Code ${f.status === 529 ? 'the API is overloaded' : 'rate limited'}: ${f.text}`,
    transient: failed,
    failed,
  },
  // A used-up window names when it reopens; a rate limit only when the server rejected the call.
  resetsAt: (f, kind) =>
    kind === 'quota'
      ? (exhausted(f)?.resetsAt ?? resetOf(f.rateLimit))
      : f.rateLimit?.status === 'rejected'
        ? resetOf(f.rateLimit)
        : undefined,
};
