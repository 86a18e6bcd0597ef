import { Type, type Static } from '@sinclair/typebox';
import { IsoTime } from './common.js';
import { Attempt } from './chat.js';

/**
 * Every error code Toolbridge answers, with its HTTP status: the one table. The library's errors
 * and the bridge's own (security rules, routing, body parsing) are all in it; `ErrorCode` is
 * derived from it, so a code outside it does not compile.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  tool_auth_required: 401,
  forbidden: 403,
  tool_not_found: 404,
  session_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  session_busy: 409,
  /** An interrupt for a session with no turn running. */
  session_idle: 409,
  approval_not_found: 404,
  approval_decided: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  quota_exceeded: 429,
  /** The caller went away; not a real HTTP status (nobody is listening), sent as 400 if ever. */
  aborted: 499,
  internal_error: 500,
  provider_execution_failed: 502,
  tool_unavailable: 503,
  dashboard_unavailable: 503,
  timeout: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

/** `{ "error": { "code", "message", ... } }`: every HTTP error of the native API. */
export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String({ examples: [...ERROR_CODES] }),
    message: Type.String(),
    toolId: Type.Optional(Type.String()),
    retryable: Type.Optional(Type.Boolean()),
    retryAfterMs: Type.Optional(Type.Integer({ description: 'Also sent as the Retry-After header' })),
    resetsAt: Type.Optional(IsoTime),
    attempts: Type.Optional(Type.Array(Attempt)),
    details: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Machine-readable specifics, e.g. { reason: "schema_mismatch", errors }' }),
    ),
  }),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;
