import { retryAfterMs as retryAfterOf, stripAnsi, type ProcessResult } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError, type ToolbridgeError } from '@toolbridge/core';
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

const AUTH_NAME = /auth/i;
// Text heuristics come last: used only when the event has no status code.
const AUTH_TEXT =
  /unauthori[sz]ed|not logged in|(invalid|missing|no|incorrect)\b[^.]*\bapi[ _-]?key|api[ _-]?key\b[^.]*\b(invalid|missing|required)/i;
const RATE_TEXT = /rate[ _-]?limit|too many requests/i;
const QUOTA_TEXT = /insufficient_quota|quota (exceeded|reached)|exceeded your (current )?quota|usage limit/i;

/** Map an OpenCode error event to a typed error: structured fields first, text last. */
export function classifyError(info: OpenCodeErrorInfo): ToolbridgeError {
  const name = info.name ?? 'Error';
  const text = info.message?.trim() || 'no message';
  const status = info.statusCode;
  const details: Record<string, unknown> = { errorName: name };
  if (status !== undefined) details.statusCode = status;
  const what = status !== undefined ? `${name} ${status}` : name;

  if (status === 401 || AUTH_NAME.test(name) || (status === undefined && AUTH_TEXT.test(text))) {
    return new ToolAuthError(`OpenCode is not authorised by its provider (${what}): ${text}. Run "opencode auth login" in a terminal.`, {
      toolId: TOOL_ID,
      details,
    });
  }
  const body = info.responseBody ?? '';
  if (status === 429 || (info.isRetryable === true && RATE_TEXT.test(text))) {
    const retryAfterMs = retryAfterOf(info.responseHeaders);
    const options = { toolId: TOOL_ID, details, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    if (QUOTA_TEXT.test(text) || QUOTA_TEXT.test(body))
      return new QuotaExceededError(`OpenCode's provider quota is used up (${what}): ${text}`, options);
    return new RateLimitError(`OpenCode's provider is rate limiting (${what}): ${text}`, options);
  }
  const retryable = info.isRetryable ?? (status !== undefined && status >= 500);
  return new ProviderExecutionError(`OpenCode failed (${what}): ${text}`, { toolId: TOOL_ID, retryable, details });
}

/**
 * `opencode run --session <id>` of a session OpenCode no longer has: exit 1, stderr `Error: Session
 * not found` (measured). Core keeps the id; the caller must start a new session.
 */
export function resumeFailure(exit: ProcessResult): ToolbridgeError | undefined {
  if (!/session not found/i.test(stripAnsi(exit.stderrTail))) return undefined;
  // The session id is OpenCode's own: kept for logs, never shown to callers.
  return new ProviderExecutionError(
    'OpenCode cannot continue this conversation: its own session is gone (deleted in OpenCode, or its data directory changed). Start a new session.',
    { toolId: TOOL_ID, details: { exitCode: exit.exitCode }, publicDetails: { reason: 'native_session_missing' } },
  );
}

/** A run that ended without an error event and without an answer. */
export function exitFailure(exit: ProcessResult, sawText: boolean, unrecognisedLines: number, refusals = 0): ToolbridgeError {
  const stderr = tail(exit.stderrTail, 1000);
  const suffix = stderr ? `: ${stderr}` : '';
  if (exit.signal) return new ProviderExecutionError(`OpenCode was killed by ${exit.signal}${suffix}`, { toolId: TOOL_ID });
  if (exit.exitCode !== 0) {
    return new ProviderExecutionError(`OpenCode exited with code ${exit.exitCode}${suffix}`, {
      toolId: TOOL_ID,
      details: { exitCode: exit.exitCode },
    });
  }
  if (!sawText && refusals > 0) {
    // A rule of the user's own OpenCode config said `ask`; with nobody to answer, run rejects and stops.
    return new ProviderExecutionError(
      `OpenCode stopped without an answer: it asked for permission to use a tool and nobody could answer (${refusals} call${refusals === 1 ? '' : 's'} rejected). Use a permission level that allows the tool, or remove "ask" rules from your OpenCode config${suffix}`,
      { toolId: TOOL_ID, details: { reason: 'permission_rejected' } },
    );
  }
  const why = sawText
    ? 'an empty answer'
    : unrecognisedLines > 0
      ? `no answer (${unrecognisedLines} unrecognised output line${unrecognisedLines === 1 ? '' : 's'})`
      : 'no answer';
  return new ProviderExecutionError(`OpenCode finished with ${why}${suffix}`, { toolId: TOOL_ID });
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
