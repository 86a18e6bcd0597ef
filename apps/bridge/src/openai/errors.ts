import { retryAfterMsOf, ToolbridgeError } from '@toolbridge/core';
import { quoted } from '@toolbridge/core/runtime';
import type { Response } from 'express';

/** OpenAI's error object: what every OpenAI client parses from a failed call. */
export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
  /** With code `schema_mismatch`: how the answer failed its JSON Schema (ajv's errors, as on the native API). */
  errors?: unknown;
}

export interface OpenAIErrorResponse {
  status: number;
  body: { error: OpenAIErrorObject };
  headers: Record<string, string>;
}

/**
 * A failure of the OpenAI layer itself (a bad field, an unknown model id, an
 * unknown URL), already in OpenAI's terms. Tool failures stay ToolbridgeErrors
 * and are translated by `toOpenAIError`.
 */
export class OpenAIRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = status === 400 ? 'invalid_request' : null,
    readonly type: string = 'invalid_request_error',
  ) {
    super(message);
    this.name = 'OpenAIRequestError';
  }
}

export function modelNotFound(modelId: string, detail?: string): OpenAIRequestError {
  return new OpenAIRequestError(
    404,
    `The model ${quoted(modelId)} does not exist${detail ? `: ${detail}` : ''}. GET /v1/models lists the available ids.`,
    'model',
    'model_not_found',
  );
}

/** The OpenAI error `type` for each Toolbridge code (OpenAI's own names where one fits). */
const TYPE_OF: Record<string, string> = {
  invalid_request: 'invalid_request_error',
  tool_not_found: 'invalid_request_error',
  tool_auth_required: 'authentication_error',
  rate_limited: 'rate_limit_error',
  quota_exceeded: 'insufficient_quota',
  timeout: 'timeout_error',
  tool_unavailable: 'server_error',
  provider_execution_failed: 'server_error',
  internal_error: 'server_error',
};

/** Body-parser failures (http-errors with `expose`): a client mistake with a safe status. */
function bodyParserStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { status?: unknown; expose?: unknown; type?: unknown };
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true && typeof e.type === 'string') {
    return e.status;
  }
  return undefined;
}

function bodyParserMessage(error: { type?: unknown }, status: number): string {
  switch (error.type) {
    case 'entity.parse.failed':
      return 'The request body is not valid JSON.';
    case 'entity.too.large':
      return 'The request body is too large.';
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return 'The request body encoding is not supported; send UTF-8 JSON.';
    default:
      return status === 415 ? 'The request body must be application/json.' : 'The request body could not be read.';
  }
}

/**
 * Map anything thrown to OpenAI's error shape and an HTTP status. Unknown
 * errors become a generic 500 so no internal message or stack leaks.
 *
 * `x-should-retry` tells OpenAI's SDKs whether their automatic retries make
 * sense: a logged-out or missing tool will not recover in a second, and a
 * timed-out chat already ran for the whole deadline.
 */
export function toOpenAIError(error: unknown): OpenAIErrorResponse {
  if (error instanceof OpenAIRequestError) {
    return {
      status: error.status,
      body: { error: { message: error.message, type: error.type, param: error.param, code: error.code } },
      headers: { 'x-should-retry': 'false' },
    };
  }
  const parserStatus = bodyParserStatus(error);
  if (parserStatus !== undefined) {
    return {
      status: parserStatus,
      body: {
        error: {
          message: bodyParserMessage(error as { type?: unknown }, parserStatus),
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_request',
        },
      },
      headers: { 'x-should-retry': 'false' },
    };
  }
  if (!ToolbridgeError.isInstance(error)) {
    return internal();
  }
  if (error.code === 'internal_error') return internal();
  const status = error.httpStatus;
  const headers: Record<string, string> = {
    'x-should-retry': String(error.retryable && error.code !== 'timeout'),
  };
  const wait = retryAfterMsOf(error);
  if (wait !== undefined) {
    headers['retry-after'] = String(Math.ceil(wait / 1000));
    headers['retry-after-ms'] = String(Math.round(wait));
  }
  const code = error.code === 'tool_not_found' ? 'model_not_found' : error.code;
  // A JSON answer that did not match its schema: the same validation errors as the native API gives.
  const mismatch = error.publicDetails?.reason === 'schema_mismatch' ? { errors: error.publicDetails.errors } : {};
  return {
    status,
    body: {
      error: {
        message: error.message,
        type: TYPE_OF[error.code] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
        param: error.code === 'tool_not_found' ? 'model' : null,
        code: mismatch.errors ? 'schema_mismatch' : code,
        ...mismatch,
      },
    },
    headers,
  };
}

function internal(): OpenAIErrorResponse {
  return {
    status: 500,
    body: { error: { message: 'Unexpected internal error', type: 'server_error', param: null, code: 'internal_error' } },
    headers: { 'x-should-retry': 'false' },
  };
}

/** Answer with `error` in OpenAI's shape (the bridge's request log reads `errorCode`). */
export function sendOpenAIError(res: Response, error: unknown): void {
  const { status, body, headers } = toOpenAIError(error);
  res.locals.errorCode = body.error.code ?? body.error.type;
  if (status === 401 && body.error.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer realm="toolbridge"');
  res.status(status).set(headers).json(body);
}
