import type { ProcessResult } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, tail, ToolAuthError, type ToolbridgeError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';
import { exhaustedWindow, type RateLimitInfo } from './usage-limits.js';

/** What Claude Code said about a failed API call, from the assistant error event and the result. */
export interface ApiFailure {
  error?: string;
  status?: number;
  apiError?: string;
  message?: string;
  rateLimit?: RateLimitInfo;
}

function resetOf(info: RateLimitInfo | undefined): Date | undefined {
  const s = info?.resetsAt;
  return typeof s === 'number' && s > 0 ? new Date(s * 1000) : undefined;
}

/**
 * Map a failed run to a typed error: structured fields first (the assistant
 * event's `error`, `api_error_status`, `api_error`), the message text last.
 */
export function classifyFailure(f: ApiFailure, proc: ProcessResult): ToolbridgeError {
  const text = f.message ?? 'unknown error';
  const details = { apiErrorStatus: f.status, apiError: f.apiError, error: f.error, exitCode: proc.exitCode };
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
