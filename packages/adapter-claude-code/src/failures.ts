import type { ProcessResult } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError, type ToolbridgeError } from '@toolbridge/core';
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

/** How the process (or, for a warm one, the turn) ended. */
export type ExitInfo = Pick<ProcessResult, 'exitCode' | 'signal' | 'stderrTail'>;

function resetOf(info: RateLimitInfo | undefined): Date | undefined {
  const s = info?.resetsAt;
  return typeof s === 'number' && s > 0 ? new Date(s * 1000) : undefined;
}

/**
 * Map a failed run to a typed error: structured fields first (the assistant
 * event's `error`, `api_error_status`, `api_error`), the message text last.
 */
export function classifyFailure(f: ApiFailure, proc: ExitInfo): ToolbridgeError {
  const text = f.message ?? 'unknown error';
  const missing = missingSession(`${text}\n${proc.stderrTail}`, proc);
  if (missing) return missing;
  const details = {
    apiErrorStatus: f.status,
    apiError: f.apiError,
    error: f.error,
    exitCode: proc.exitCode,
    terminalReason: f.terminalReason,
  };
  const opts = { toolId: TOOL_ID, details };
  if (f.error === 'authentication_failed' || f.status === 401 || /not logged in/i.test(text)) {
    const hint = /not logged in/i.test(text) ? ' Run `claude auth login` (or set ANTHROPIC_API_KEY).' : '';
    return new ToolAuthError(`Claude Code could not authenticate: ${text}.${hint}`, opts);
  }
  const exhausted = f.rateLimit ? exhaustedWindow(f.rateLimit) : undefined;
  if (f.apiError === 'usage_limit_reached' || exhausted) {
    const resetsAt = exhausted?.resetsAt ?? resetOf(f.rateLimit);
    return new QuotaExceededError(`Claude Code usage limit reached: ${text}`, { ...opts, ...(resetsAt ? { resetsAt } : {}) });
  }
  if (f.status === 429 || f.status === 529 || f.error === 'rate_limit') {
    const resetsAt = f.rateLimit?.status === 'rejected' ? resetOf(f.rateLimit) : undefined;
    const what = f.status === 529 ? 'the API is overloaded' : 'rate limited';
    return new RateLimitError(`Claude Code ${what}: ${text}`, { ...opts, ...(resetsAt ? { resetsAt } : {}) });
  }
  const retryable = (f.status !== undefined && f.status >= 500) || f.apiError === 'connection_failed';
  const stderr = tail(proc.stderrTail, 600);
  return new ProviderExecutionError(`Claude Code failed: ${text}${stderr ? ` (stderr: ${stderr})` : ''}`, {
    ...opts,
    retryable,
    details: { ...details, stderrTail: proc.stderrTail },
  });
}

/** `--resume` of a session Claude Code does not have (any more): it answers at once, with this text. */
function missingSession(text: string, proc: ExitInfo): ToolbridgeError | undefined {
  const id = /No conversation found with session ID: (\S+)/.exec(text)?.[1];
  if (!id) return undefined;
  return new ProviderExecutionError(
    `Claude Code no longer has the session ${id} this conversation continues (its transcript was deleted or moved); start a new session`,
    { toolId: TOOL_ID, retryable: false, details: { exitCode: proc.exitCode }, publicDetails: { reason: 'native_session_missing' } },
  );
}

/**
 * A run that ended without a `result`: an API failure it reported, one of the start-up refusals
 * Claude Code prints on stderr, or a crash.
 */
export function failureWithoutResult(api: ApiFailure | undefined, proc: ExitInfo, notStreamJson: boolean): ToolbridgeError {
  if (api) return classifyFailure(api, proc);
  const stderr = tail(proc.stderrTail, 600);
  const details = { exitCode: proc.exitCode, signal: proc.signal, stderrTail: proc.stderrTail };
  const missing = missingSession(proc.stderrTail, proc);
  if (missing) return missing;
  if (/cannot be used with root\/sudo privileges/.test(proc.stderrTail)) {
    return new ProviderExecutionError(
      'Claude Code refuses to bypass its permission checks when run as root (full permissions); run Toolbridge as another user, or set IS_SANDBOX=1 if this really is a sandbox',
      { toolId: TOOL_ID, retryable: false, details, publicDetails: { reason: 'bypass_refused_as_root' } },
    );
  }
  const how = proc.signal ? `was killed by ${proc.signal}` : proc.exitCode !== 0 ? `exited with code ${proc.exitCode}` : 'exited';
  const what = notStreamJson ? 'printed output that is not stream-json' : 'ended without a result';
  return new ProviderExecutionError(`Claude Code ${what} (it ${how})${stderr ? `: ${stderr}` : ''}`, { toolId: TOOL_ID, details });
}
