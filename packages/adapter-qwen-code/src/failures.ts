import type { ProcessResult } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError, type ToolbridgeError } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { NAME, TOOL_ID } from './config.js';

/** How the process (or, for a warm one, the turn) ended. */
export type ExitInfo = Pick<ProcessResult, 'exitCode' | 'signal' | 'stderrTail'>;

/** Qwen Code's failed model call, as it writes it in the result's `error.message`: `[API Error: 429 Rate limit reached]`. */
const API_ERROR = /\[API Error: (?:(\d{3}) )?([^\]\n]*)\]?/;

const SIGNED_OUT = /missing api key|no api key|api key (is )?(not set|required)|please set an auth method/i;
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

/**
 * Map a failed turn to a typed error from the status in Qwen Code's `[API Error: N …]` text:
 * 401/403 → auth, 429 → rate limit (a quota when the provider says so), 5xx → retryable. Qwen Code
 * has already retried 429 and 5xx itself (7 attempts, backing off up to 30 s; 0.24.4 has no
 * setting that turns this off), so a 429 or 5xx that reaches here is its last answer.
 */
export function classifyFailure(message: string, proc: ExitInfo): ToolbridgeError {
  const m = API_ERROR.exec(message);
  const status = m?.[1] ? Number(m[1]) : undefined;
  const text = (m?.[2] ?? message).trim() || 'unknown error';
  const missing = missingSession(`${message}\n${proc.stderrTail}`, proc);
  if (missing) return missing;
  const opts = { toolId: TOOL_ID, details: { apiErrorStatus: status, exitCode: proc.exitCode } };
  if (status === 401 || status === 403) return new ToolAuthError(`${NAME} could not authenticate: ${text}`, opts);
  // Start-up refusals of a sign-in without its key ("Missing API key for OpenAI-compatible auth. Set …").
  if (status === undefined && SIGNED_OUT.test(message)) return new ToolAuthError(`${NAME} is not signed in: ${firstLine(message)}`, opts);
  if (status === 429) {
    const resetsAt = resetIn(message);
    const quota = /quota|insufficient_quota|billing|exceeded your current/i.test(text);
    const Err = quota ? QuotaExceededError : RateLimitError;
    return new Err(`${NAME} ${quota ? 'quota exceeded' : 'rate limited'}: ${text}`, { ...opts, ...(resetsAt ? { resetsAt } : {}) });
  }
  const retryable = status !== undefined && status >= 500;
  return new ProviderExecutionError(`${NAME} failed: ${text}`, { ...opts, retryable });
}

/** `--resume` of a session Qwen Code does not have here: it exits 1 at once with this on stderr. */
function missingSession(text: string, proc: ExitInfo): ToolbridgeError | undefined {
  const id = /No saved session found with ID:? (\S+?)\.?\s/.exec(`${text} `)?.[1];
  if (!id) return undefined;
  return new ProviderExecutionError(
    `${NAME} has no session ${id} for this working directory (its sessions are kept per directory, and the transcript may be gone); continue it from the directory it began in, or start a new session`,
    { toolId: TOOL_ID, retryable: false, details: { exitCode: proc.exitCode }, publicDetails: { reason: 'native_session_missing' } },
  );
}

/** A run that ended without a `result`: a start-up refusal on stderr, or a crash. */
export function failureWithoutResult(proc: ExitInfo, notStreamJson: boolean): ToolbridgeError {
  const missing = missingSession(proc.stderrTail, proc);
  if (missing) return missing;
  const stderr = tail(
    proc.stderrTail
      .split('\n')
      .filter((l) => !l.startsWith('Ripgrep not available'))
      .join('\n'),
    600,
  );
  const details = { exitCode: proc.exitCode, signal: proc.signal, stderrTail: proc.stderrTail };
  if (SIGNED_OUT.test(stderr)) {
    return new ToolAuthError(`${NAME} is not signed in: ${stderr}`, { toolId: TOOL_ID, details });
  }
  const how = proc.signal ? `was killed by ${proc.signal}` : proc.exitCode !== 0 ? `exited with code ${proc.exitCode}` : 'exited';
  const what = notStreamJson ? 'printed output that is not stream-json' : 'ended without a result';
  return new ProviderExecutionError(`${NAME} ${what} (it ${how})${stderr ? `: ${stderr}` : ''}`, { toolId: TOOL_ID, details });
}
