import {
  classifyFailure,
  retryAfterMs as retryAfterOf,
  stripAnsi,
  type FailureFacts,
  type FailureTable,
  type ProcessResult,
} from '@toolbridge/adapter-kit';
import type { ToolbridgeError } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';

/** The `error` of an OpenCode `{"type":"error"}` event. */
export interface OpenCodeErrorInfo {
  name?: string;
  message?: string;
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

export function errorInfoOf(event: Record<string, unknown>): OpenCodeErrorInfo {
  const error = record(event.error);
  const data = record(error.data);
  const headers = record(data.responseHeaders);
  const info: OpenCodeErrorInfo = {};
  if (typeof error.name === 'string') info.name = error.name;
  // Some errors carry the message on the error itself rather than in `data`.
  const message = typeof data.message === 'string' ? data.message : typeof error.message === 'string' ? error.message : undefined;
  if (message !== undefined) info.message = message;
  if (typeof data.statusCode === 'number') info.statusCode = data.statusCode;
  if (typeof data.isRetryable === 'boolean') info.isRetryable = data.isRetryable;
  if (typeof data.responseBody === 'string') info.responseBody = data.responseBody;
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') h[k.toLowerCase()] = v;
  if (Object.keys(h).length > 0) info.responseHeaders = h;
  return info;
}

/** What is known of an OpenCode failure: an error event's fields, or how a run without one ended. */
export interface OpenCodeFailure extends FailureFacts, Omit<OpenCodeErrorInfo, 'message' | 'statusCode'> {
  /** A run that ended without an error event: how, and what it printed; absent for an error event. */
  end?: RunEnd;
  /** A call on a session of `opencode serve` that it refused (with `status`). */
  sessionCall?: boolean;
}

/** How a run without an error event ended. */
export interface RunEnd {
  exitCode: number | null;
  signal: ProcessResult['signal'];
  /** It continued a session (`--session`). */
  resumed: boolean;
  sawText: boolean;
  unrecognisedLines: number;
  /** Tool calls OpenCode rejected because nobody could answer its permission question. */
  refusals: number;
}

/** The facts of an error event. */
function errorFacts(info: OpenCodeErrorInfo): OpenCodeFailure {
  const { message, statusCode, ...fields } = info;
  const name = info.name ?? 'Error';
  const known = statusCode !== undefined;
  const details = { errorName: name, ...(known ? { statusCode } : {}) };
  return { ...fields, name, text: message?.trim() || 'no message', ...(known ? { status: statusCode } : {}), details };
}

/** The facts of a run that ended without an error event and without an answer. */
export function exitFacts(
  exit: ProcessResult,
  run: Pick<RunEnd, 'sawText' | 'unrecognisedLines' | 'refusals'>,
  resumed: boolean,
): OpenCodeFailure {
  const { exitCode, signal } = exit;
  return { text: exit.stderrTail, end: { exitCode, signal, resumed, ...run } };
}

const AUTH_NAME = /auth/i;
// Text heuristics come last: used only when the event has no status code.
const AUTH_TEXT =
  /unauthori[sz]ed|not logged in|(invalid|missing|no|incorrect)\b[^.]*\bapi[ _-]?key|api[ _-]?key\b[^.]*\b(invalid|missing|required)/i;
const RATE_TEXT = /rate[ _-]?limit|too many requests/i;
const QUOTA_TEXT = /insufficient_quota|quota (exceeded|reached)|exceeded your (current )?quota|usage limit/i;

const limited = (f: OpenCodeFailure) => f.status === 429 || (f.isRetryable === true && RATE_TEXT.test(f.text));
const what = (f: OpenCodeFailure) => (f.status !== undefined ? `${f.name} ${f.status}` : f.name);
const suffix = (f: OpenCodeFailure) => {
  const stderr = tail(f.text, 1000);
  return stderr ? `: ${stderr}` : '';
};

function noAnswer(f: OpenCodeFailure): string {
  const { sawText, unrecognisedLines: n } = f.end!;
  const why = sawText ? 'an empty answer' : n > 0 ? `no answer (${n} unrecognised output line${n === 1 ? '' : 's'})` : 'no answer';
  return `OpenCode finished with ${why}${suffix(f)}`;
}

/** OpenCode's failures: how a run ended first; an error event by its structured fields, its text last. */
export const OPENCODE_FAILURES: FailureTable<OpenCodeFailure> = {
  name: 'OpenCode',
  toolId: TOOL_ID,
  rules: [
    // `opencode run --session <id>` of a session OpenCode no longer has: exit 1, stderr `Error: Session
    // not found` (measured). Core keeps the id; the caller must start a new session. The id is
    // OpenCode's own: kept for logs, never shown to callers.
    {
      class: 'session_missing',
      when: (f) => !!f.end?.resumed && f.end.exitCode !== 0 && /session not found/i.test(stripAnsi(f.text)),
      details: (f) => ({ exitCode: f.end!.exitCode }),
    },
    // `opencode serve` answers 404 to a call on a session it does not have.
    { class: 'session_missing', status: [404], when: (f) => f.sessionCall === true },
    { class: 'failed', when: (f) => !!f.end?.signal, message: (f) => `OpenCode was killed by ${f.end!.signal}${suffix(f)}` },
    {
      class: 'failed',
      when: (f) => f.end !== undefined && f.end.exitCode !== 0,
      message: (f) => `OpenCode exited with code ${f.end!.exitCode}${suffix(f)}`,
      details: (f) => ({ exitCode: f.end!.exitCode }),
    },
    // A rule of the user's own OpenCode config said `ask`; with nobody to answer, run rejects and stops.
    {
      class: 'failed',
      when: (f) => f.end !== undefined && !f.end.sawText && f.end.refusals > 0,
      message: (f) => {
        const n = f.end!.refusals;
        return `OpenCode stopped without an answer: it asked for permission to use a tool and nobody could answer (${n} call${n === 1 ? '' : 's'} rejected). Use a permission level that allows the tool, or remove "ask" rules from your OpenCode config${suffix(f)}`;
      },
      details: () => ({ reason: 'permission_rejected' }),
    },
    { class: 'failed', when: (f) => f.end !== undefined, message: noAnswer },
    { class: 'auth', status: [401] },
    { class: 'auth', when: (f) => AUTH_NAME.test(f.name ?? '') },
    { class: 'auth', match: AUTH_TEXT, when: (f) => f.status === undefined },
    { class: 'quota', when: (f) => limited(f) && (QUOTA_TEXT.test(f.text) || QUOTA_TEXT.test(f.responseBody ?? '')) },
    { class: 'rate_limit', when: limited },
    { class: 'transient', when: (f) => f.isRetryable ?? (f.status ?? 0) >= 500 },
  ],
  messages: {
    session_missing: () =>
      'OpenCode cannot continue this conversation: its own session is gone (deleted in OpenCode, or its data directory changed). Start a new session.',
    auth: (f) => `OpenCode is not authorised by its provider (${what(f)}): ${f.text}. Run "opencode auth login" in a terminal.`,
    quota: (f) => `OpenCode's provider quota is used up (${what(f)}): ${f.text}`,
    rate_limit: (f) => `OpenCode's provider is rate limiting (${what(f)}): ${f.text}`,
    transient: (f) => `OpenCode failed (${what(f)}): ${f.text}`,
    failed: (f) => `OpenCode failed (${what(f)}): ${f.text}`,
  },
  retryAfterMs: (f) => retryAfterOf(f.responseHeaders),
};

/** An OpenCode error event (of `opencode run`, or of `opencode serve`'s session) as a typed error. */
export function classifyError(info: OpenCodeErrorInfo): ToolbridgeError {
  return classifyFailure(errorFacts(info), OPENCODE_FAILURES);
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
