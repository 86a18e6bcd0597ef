/** Calls to the bridge from the page: same origin, the token from this tab's session, errors as ApiError. */

import { failureFrom, failureText, isTokenFailure, type ApiFailure } from './api-errors.js';
import { readSseStream, type SseMessage } from './sse.js';
import { getToken } from './token.js';

export class ApiError extends Error {
  constructor(readonly failure: ApiFailure) {
    super(failure.message);
    this.name = 'ApiError';
  }
}

/** What a failed call says to a person. */
export const errorText = (e: unknown): string =>
  e instanceof ApiError ? failureText(e.failure) : e instanceof Error ? e.message : String(e);

/** Called whenever the bridge refuses the token; the page then asks for it. */
let onTokenFailure: (failure: ApiFailure) => void = () => undefined;

export function handleTokenFailures(handler: (failure: ApiFailure) => void): void {
  onTokenFailure = handler;
}

function headers(extra: Record<string, string> = {}): Headers {
  const h = new Headers(extra);
  const token = getToken();
  if (token) h.set('Authorization', `Bearer ${token}`);
  return h;
}

async function call(path: string, init: RequestInit): Promise<Response> {
  const res = await fetch(path, { ...init, credentials: 'omit', cache: 'no-store' });
  if (res.ok) return res;
  const failure = failureFrom(res.status, await res.text().catch(() => ''), res.headers.get('Retry-After'), Date.now());
  if (isTokenFailure(failure)) onTokenFailure(failure);
  throw new ApiError(failure);
}

export async function getJson<T>(path: string): Promise<T> {
  const res = await call(path, { headers: headers({ Accept: 'application/json' }) });
  return (await res.json()) as T;
}

export async function sendJson<T>(method: 'POST' | 'PUT', path: string, body: unknown): Promise<T> {
  const res = await call(path, {
    method,
    headers: headers({ Accept: 'application/json', 'Content-Type': 'application/json' }),
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/**
 * POST a streamed chat and hand each SSE message to `onMessage`. A bridge
 * that answers plain JSON instead (no streaming) is read as one `done`.
 * Aborting `signal` closes the connection, and the bridge kills the tool.
 */
export async function postStream(
  path: string,
  body: unknown,
  signal: AbortSignal,
  onMessage: (message: SseMessage) => void,
): Promise<void> {
  const res = await call(path, {
    method: 'POST',
    headers: headers({ Accept: 'text/event-stream', 'Content-Type': 'application/json' }),
    body: JSON.stringify(body),
    signal,
  });
  if (res.body && (res.headers.get('Content-Type') ?? '').includes('text/event-stream')) {
    await readSseStream(res.body, onMessage);
    return;
  }
  onMessage({ event: 'done', data: await res.text() });
}

/** DELETE a resource (204, no body). */
export async function deleteResource(path: string): Promise<void> {
  await call(path, { method: 'DELETE', headers: headers({ Accept: 'application/json' }) });
}
