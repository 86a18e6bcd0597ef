import { FallbackExhaustedError, RateLimitError, toToolbridgeError, ToolUnavailableError, type ToolbridgeError } from './errors.js';
import type { AttemptReason, ErrorEnvelope } from './types.js';

/** The attempt reason a failure is recorded under in a fallback chat. */
export function attemptReasonOf(error: ToolbridgeError): AttemptReason {
  if (error.publicDetails?.reason === 'schema_mismatch') return 'schema_mismatch';
  if (error.publicDetails?.reason === 'unsupported') return 'unsupported';
  switch (error.code) {
    case 'timeout':
      return 'timeout';
    case 'tool_unavailable':
      return error.details?.busy === true ? 'busy' : 'unavailable';
    case 'tool_auth_required':
      return 'unauthenticated';
    case 'rate_limited':
      return 'rate_limited';
    case 'quota_exceeded':
      return 'quota_exceeded';
    case 'tool_not_found':
      return 'not_found';
    case 'invalid_request':
      return 'invalid_request';
    case 'aborted':
      return 'aborted';
    case 'internal_error':
      return 'internal_error';
    default:
      return 'provider_execution_failed';
  }
}

/** Milliseconds the caller should wait before retrying, when the error says (HTTP `Retry-After`). */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (RateLimitError.isInstance(error)) return (error as RateLimitError).waitMs();
  if (ToolUnavailableError.isInstance(error)) return (error as ToolUnavailableError).retryAfterMs;
  if (FallbackExhaustedError.isInstance(error)) return retryAfterMsOf((error as FallbackExhaustedError).lastError);
  return undefined;
}

/** Map any error to the spec's envelope and HTTP status. Unknown errors never leak their message. */
export function toErrorEnvelope(error: unknown): { status: number; body: ErrorEnvelope } {
  const e = toToolbridgeError(error);
  const body: ErrorEnvelope = { error: { code: e.code, message: e.message } };
  if (e.toolId) body.error.toolId = e.toolId;
  if (e.code !== 'internal_error') body.error.retryable = e.retryable;
  const wait = retryAfterMsOf(e);
  if (wait !== undefined) body.error.retryAfterMs = wait;
  const rateLimit = RateLimitError.isInstance(e) ? e : FallbackExhaustedError.isInstance(e) ? e.lastError : undefined;
  if (rateLimit && RateLimitError.isInstance(rateLimit) && rateLimit.resetsAt) body.error.resetsAt = rateLimit.resetsAt.toISOString();
  if (FallbackExhaustedError.isInstance(e)) body.error.attempts = e.attempts;
  const details = e.publicDetails ?? (FallbackExhaustedError.isInstance(e) ? e.lastError?.publicDetails : undefined);
  if (details) body.error.details = details;
  return { status: e.httpStatus, body };
}
