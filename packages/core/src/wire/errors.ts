import { Type, type Static } from '@sinclair/typebox';
import { IsoTime } from './common.js';
import { Attempt } from './chat.js';

export const ERROR_CODES = [
  'invalid_request',
  'tool_auth_required',
  'tool_not_found',
  'session_not_found',
  'session_busy',
  'session_idle',
  'approval_not_found',
  'approval_decided',
  'internal_error',
  'provider_execution_failed',
  'tool_unavailable',
  'timeout',
  'rate_limited',
  'quota_exceeded',
  'aborted',
] as const;

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
