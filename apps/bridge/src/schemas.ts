import { Ajv, type ValidateFunction } from 'ajv';
import { chatMessageSchema, chatRequestProperties, describeSchemaError, InvalidRequestError, type ChatMessage } from '@toolbridge/core';

/**
 * JSON Schemas of the request bodies. The same objects validate requests and
 * appear in `GET /openapi.json`, so the document cannot drift from behaviour.
 */
const timeoutMs = { type: 'integer', minimum: 1, maximum: 86_400_000, description: 'Deadline in milliseconds' } as const;
const stream = { type: 'boolean', description: 'Answer as text/event-stream (SSE) instead of one JSON object' } as const;

export const toolChatRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['messages'],
  properties: { ...chatRequestProperties, timeoutMs, stream },
} as const;

export const fallbackChatRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['providers', 'messages'],
  properties: {
    providers: {
      type: 'array',
      minItems: 1,
      maxItems: 32,
      items: { type: 'string', minLength: 1 },
      description: 'Tool ids in the order to try',
    },
    ...chatRequestProperties,
    retries: { type: 'integer', minimum: 0, maximum: 10, description: 'Retries per tool for retryable failures' },
    perAttemptTimeoutMs: { ...timeoutMs, description: 'Time allowed for each attempt, in milliseconds' },
    timeoutMs: { ...timeoutMs, description: 'Time allowed for the whole fallback chat, in milliseconds' },
    stream,
  },
} as const;

export const authRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { timeoutMs },
} as const;

export { chatMessageSchema };

export interface ToolChatBody {
  messages: ChatMessage[];
  model?: string;
  cwd?: string;
  maxTokens?: number;
  temperature?: number;
  timeoutMs?: number;
  stream?: boolean;
}

export interface FallbackChatBody extends ToolChatBody {
  providers: string[];
  retries?: number;
  perAttemptTimeoutMs?: number;
}

export interface AuthBody {
  timeoutMs?: number;
}

// Compiled once, at load.
const ajv = new Ajv({ allErrors: false, strict: true });
const validators = {
  toolChat: ajv.compile(toolChatRequestSchema),
  fallbackChat: ajv.compile(fallbackChatRequestSchema),
  auth: ajv.compile(authRequestSchema),
};

function check<T>(validate: ValidateFunction, body: unknown, subject: string): T {
  if (body === undefined) throw new InvalidRequestError(`${subject} body is required (a JSON object)`);
  if (!validate(body)) throw new InvalidRequestError(describeSchemaError(validate, subject));
  return body as T;
}

function requireUserMessage(body: ToolChatBody, subject: string): void {
  if (!body.messages.some((m) => m.role === 'user')) {
    throw new InvalidRequestError(`${subject} must contain at least one message with role "user"`);
  }
}

export function parseToolChatBody(body: unknown): ToolChatBody {
  const b = check<ToolChatBody>(validators.toolChat, body, 'chat request');
  requireUserMessage(b, 'chat request');
  return b;
}

export function parseFallbackChatBody(body: unknown): FallbackChatBody {
  const b = check<FallbackChatBody>(validators.fallbackChat, body, 'fallback chat request');
  requireUserMessage(b, 'fallback chat request');
  return b;
}

/** POST /auth/:toolId takes no body, or an object with `timeoutMs`. */
export function parseAuthBody(body: unknown): AuthBody {
  return body === undefined ? {} : check<AuthBody>(validators.auth, body, 'auth request');
}
