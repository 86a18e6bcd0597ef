import { Type, type Static } from '@sinclair/typebox';
import { InvalidRequestError, LIMITS, wire } from '@toolbridge/core';
import { completeChatRequest, createAjv, describeSchemaError, type ValidChatRequest } from '@toolbridge/core/runtime';
import type { ValidateFunction } from 'ajv';

/**
 * JSON Schemas of the request bodies, built from core's wire schemas. The same objects validate
 * requests and appear in `GET /openapi.json`, so the document cannot drift from behaviour.
 */
const timeoutMs = Type.Integer({ minimum: 1, maximum: LIMITS.maxTimeoutMs, description: 'Deadline in milliseconds' });
const stream = Type.Boolean({ description: 'Answer as text/event-stream (SSE) instead of one JSON object' });

export const toolChatRequestSchema = Type.Object(
  { ...wire.chatRequestFields, timeoutMs: Type.Optional(timeoutMs), stream: Type.Optional(stream) },
  { additionalProperties: false },
);

export const fallbackChatRequestSchema = Type.Object(
  {
    providers: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: LIMITS.maxProviders,
      description: 'Tool ids in the order to try',
    }),
    ...wire.chatRequestFields,
    retries: Type.Optional(
      Type.Integer({ minimum: 0, maximum: LIMITS.maxRetries, description: 'Retries per tool for retryable failures' }),
    ),
    perAttemptTimeoutMs: Type.Optional(Type.Integer({ ...timeoutMs, description: 'Time allowed for each attempt, in milliseconds' })),
    timeoutMs: Type.Optional(Type.Integer({ ...timeoutMs, description: 'Time allowed for the whole fallback chat, in milliseconds' })),
    ...wire.fallbackRouteFields,
    stream: Type.Optional(stream),
  },
  { additionalProperties: false },
);

export const authRequestSchema = Type.Object({ timeoutMs: Type.Optional(timeoutMs) }, { additionalProperties: false });

/** `POST /approvals/:approvalId`: core's reply shape. */
export const approvalReplySchema = wire.ApprovalReply;

type ToolChatFields = Static<typeof toolChatRequestSchema>;
type FallbackChatFields = Static<typeof fallbackChatRequestSchema>;

export interface ToolChatBody {
  request: ValidChatRequest;
  timeoutMs?: number;
  stream: boolean;
}

export interface FallbackChatBody extends ToolChatBody {
  providers: string[];
  retries?: number;
  perAttemptTimeoutMs?: number;
  route?: wire.RoutePolicy;
  waitForQuota?: number;
}

export interface AuthBody {
  timeoutMs?: number;
}

// Compiled once, at load.
const ajv = createAjv();
const validators = {
  toolChat: ajv.compile(toolChatRequestSchema),
  fallbackChat: ajv.compile(fallbackChatRequestSchema),
  auth: ajv.compile(authRequestSchema),
  approvalReply: ajv.compile(approvalReplySchema),
};

function check<T>(validate: ValidateFunction, body: unknown, subject: string): T {
  if (body === undefined) throw new InvalidRequestError(`${subject} body is required (a JSON object)`);
  if (!validate(body)) throw new InvalidRequestError(describeSchemaError(validate, subject));
  return body as T;
}

export async function parseToolChatBody(body: unknown): Promise<ToolChatBody> {
  const { timeoutMs: t, stream: s, ...fields } = check<ToolChatFields>(validators.toolChat, body, 'chat request');
  return { request: await completeChatRequest(fields, 'http'), ...(t !== undefined ? { timeoutMs: t } : {}), stream: s === true };
}

export async function parseFallbackChatBody(body: unknown): Promise<FallbackChatBody> {
  const {
    providers,
    retries,
    perAttemptTimeoutMs,
    timeoutMs: t,
    stream: s,
    route,
    waitForQuota,
    ...fields
  } = check<FallbackChatFields>(validators.fallbackChat, body, 'fallback chat request');
  return {
    request: await completeChatRequest(fields, 'http'),
    providers,
    ...(retries !== undefined ? { retries } : {}),
    ...(perAttemptTimeoutMs !== undefined ? { perAttemptTimeoutMs } : {}),
    ...(t !== undefined ? { timeoutMs: t } : {}),
    ...(route !== undefined ? { route } : {}),
    ...(waitForQuota !== undefined ? { waitForQuota } : {}),
    stream: s === true,
  };
}

/** POST /auth/:toolId takes no body, or an object with `timeoutMs`. */
export function parseAuthBody(body: unknown): AuthBody {
  return body === undefined ? {} : check<AuthBody>(validators.auth, body, 'auth request');
}

/** POST /approvals/:approvalId takes `{ decision, message? }`. */
export function parseApprovalReply(body: unknown): wire.ApprovalReply {
  return check<wire.ApprovalReply>(validators.approvalReply, body, 'approval reply');
}
