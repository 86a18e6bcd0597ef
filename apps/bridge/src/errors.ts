import { toErrorEnvelope, ToolbridgeError, type ErrorCode, type ErrorEnvelope } from '@toolbridge/core';
import type { ErrorRequestHandler, Request, Response } from 'express';
import { fromExposedHttpError } from './http-errors.js';
import { sendOpenAIError } from './openai/errors.js';

/** A bridge-level HTTP error (security rules, routing) in the same envelope as tool errors. */
export function httpError(code: ErrorCode, message: string): ToolbridgeError {
  return new ToolbridgeError(code, message);
}

/** body-parser's errors carry `type` and `status`; map them to the spec's codes. */
function fromBodyParser(err: unknown): ToolbridgeError | undefined {
  if (typeof err !== 'object' || err === null || !('type' in err)) return undefined;
  const { type, limit } = err as { type?: unknown; limit?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return httpError('invalid_request', 'request body is not valid JSON');
    case 'entity.too.large':
      return httpError('payload_too_large', `request body is larger than the limit of ${String(limit)} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return httpError('unsupported_media_type', 'request body must be UTF-8 encoded application/json');
    case 'request.aborted':
      return httpError('invalid_request', 'request body was not completely received');
    case 'request.size.invalid':
      return httpError('invalid_request', 'request body size does not match Content-Length');
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return undefined;
    default:
      return undefined;
  }
}

export function envelopeOf(err: unknown): { status: number; body: ErrorEnvelope } {
  return toErrorEnvelope(fromBodyParser(err) ?? fromExposedHttpError(err) ?? err);
}

export function sendError(res: Response, err: unknown): void {
  const { status, body } = envelopeOf(err);
  res.locals.errorCode = body.error.code;
  if (status === 401 && body.error.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer realm="toolbridge"');
  // A busy tool or a rate limit says when to come back (HTTP wants whole seconds).
  if (typeof body.error.retryAfterMs === 'number') res.setHeader('Retry-After', String(Math.ceil(body.error.retryAfterMs / 1000)));
  // 499 (client went away) is not a real HTTP status; nobody is listening anyway.
  res.status(status === 499 ? 400 : status).json(body);
}

/**
 * The one place errors become responses. Unknown errors are `internal_error`
 * with a generic message: no stack trace or inner message ever leaves.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    // A streamed response cannot change status any more; end it so the client sees the cut.
    res.destroy();
    return;
  }
  // OpenAI clients read OpenAI's error shape, also for the bridge's own rules (403, 401, 413, 415, bad JSON).
  if (isOpenAIPath(req)) sendOpenAIError(res, fromBodyParser(err) ?? fromExposedHttpError(err) ?? err);
  else sendError(res, err);
};

function isOpenAIPath(req: Request): boolean {
  return req.originalUrl === '/v1' || req.originalUrl.startsWith('/v1/') || req.originalUrl.startsWith('/v1?');
}
