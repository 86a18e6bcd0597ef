/** A failed API call as the page shows it, from the bridge's error envelope (pure; no DOM). */

import type { Attempt, ErrorEnvelope } from '@toolbridge/core/wire';

/** The `error` of every error answer the bridge gives. */
export type ErrorBody = ErrorEnvelope['error'];

export interface ApiFailure {
  status: number;
  code: string;
  message: string;
  /** From `Retry-After` (a busy tool's queue is full) or the envelope's `retryAfterMs`. */
  retryAfterSeconds?: number;
  attempts?: Attempt[];
  /** Specific problems to list under the message (a schema mismatch's validation errors). */
  problems?: string[];
}

/** `Retry-After` is seconds or an HTTP date. */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined;
}

/** The envelope's code and message; a body that is not one (a proxy's HTML page) still gives a readable failure. */
export function failureFrom(status: number, bodyText: string, retryAfterHeader: string | null | undefined, now: number): ApiFailure {
  let error: Partial<ErrorBody> | undefined;
  try {
    const parsed = JSON.parse(bodyText) as { error?: Partial<ErrorBody> };
    if (parsed && typeof parsed.error === 'object' && parsed.error !== null) error = parsed.error;
  } catch {
    // not JSON
  }
  const retryAfterSeconds =
    parseRetryAfter(retryAfterHeader, now) ?? (typeof error?.retryAfterMs === 'number' ? Math.ceil(error.retryAfterMs / 1000) : undefined);
  return {
    status,
    code: typeof error?.code === 'string' ? error.code : `http_${status}`,
    message: typeof error?.message === 'string' && error.message ? error.message : `the bridge answered HTTP ${status}`,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    ...(Array.isArray(error?.attempts) ? { attempts: error.attempts } : {}),
    ...(problemsOf(error?.details).length ? { problems: problemsOf(error?.details) } : {}),
  };
}

/** A schema mismatch's validation errors (`details.errors`: `{ path, message }`) as lines: "/age: must be integer". */
export function problemsOf(details: Record<string, unknown> | undefined): string[] {
  const errors = details?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e): e is { path?: unknown; message: string } => typeof e === 'object' && e !== null && typeof e.message === 'string')
    .slice(0, 20)
    .map((e) => `${typeof e.path === 'string' && e.path && e.path !== '/' ? e.path : 'answer'}: ${e.message}`);
}

/** "tool_unavailable: the queue is full (try again in 5 s)". */
export function failureText(failure: Pick<ApiFailure, 'code' | 'message' | 'retryAfterSeconds'>): string {
  const retry = failure.retryAfterSeconds !== undefined ? ` (try again in ${failure.retryAfterSeconds} s)` : '';
  return `${failure.code}: ${failure.message}${retry}`;
}

/**
 * The bridge's own token was missing or wrong. A 401 `tool_auth_required` is
 * different: the tool needs a login, and the token is fine.
 */
export function isTokenFailure(failure: Pick<ApiFailure, 'status' | 'code'>): boolean {
  return failure.status === 401 && failure.code !== 'tool_auth_required';
}
