import { ToolbridgeError } from '@toolbridge/core';

/**
 * Client errors raised by Express itself (http-errors with `expose`, e.g. a path
 * parameter that is not valid percent-encoding) are the caller's mistake, never a
 * 500. Their messages echo raw input, so a fixed one is used. Body-parser errors
 * (which carry a `type`) are mapped where they are handled.
 */
export function fromExposedHttpError(err: unknown): ToolbridgeError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { status?: unknown; expose?: unknown; type?: unknown; name?: unknown };
  // Express's router marks a path it cannot decode with status 400 but no `expose`.
  const clientError = e.expose === true || e.name === 'URIError';
  if (typeof e.status !== 'number' || e.status < 400 || e.status >= 500 || !clientError || typeof e.type === 'string') {
    return undefined;
  }
  return e.status === 400
    ? new ToolbridgeError('invalid_request', 'the request could not be parsed (is the URL validly percent-encoded?)')
    : new ToolbridgeError('invalid_request', `the request was rejected (HTTP ${e.status})`);
}
