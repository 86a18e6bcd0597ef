import { Ajv, type ValidateFunction } from 'ajv';
import { InvalidRequestError } from './errors.js';
import { quoted } from './text.js';
import type { ChatRequest } from './types.js';

/** JSON Schemas of request bodies; the bridge publishes the same ones in its OpenAPI document. */
export const chatMessageSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['role', 'content'],
  properties: {
    role: { type: 'string', enum: ['system', 'user', 'assistant'] },
    content: { type: 'string' },
  },
} as const;

export const chatRequestProperties = {
  messages: { type: 'array', minItems: 1, items: chatMessageSchema },
  model: { type: 'string', minLength: 1 },
  cwd: { type: 'string', minLength: 1 },
  maxTokens: { type: 'integer', minimum: 1 },
  temperature: { type: 'number', minimum: 0, maximum: 2 },
} as const;

export const chatRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['messages'],
  properties: chatRequestProperties,
} as const;

const ajv = new Ajv({ allErrors: false, strict: true });
const validateChat: ValidateFunction = ajv.compile(chatRequestSchema);

/** Turn the first ajv error into a message a caller can act on. */
export function describeSchemaError(validate: ValidateFunction, subject = 'request'): string {
  const err = validate.errors?.[0];
  if (!err) return `invalid ${subject}`;
  const where = err.instancePath ? err.instancePath.slice(1).replace(/\//g, '.') : subject;
  switch (err.keyword) {
    case 'required':
      return `${subject} is missing required field "${(err.params as { missingProperty: string }).missingProperty}"${err.instancePath ? ` in ${where}` : ''}`;
    case 'additionalProperties':
      return `${where === subject ? subject : where} has unknown field ${quoted((err.params as { additionalProperty: string }).additionalProperty)}`;
    case 'enum':
      return `${where} must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `${where} must be ${(err.params as { type: string }).type === 'array' ? 'an array' : `of type ${(err.params as { type: string }).type}`}`;
    case 'minItems': {
      const n = (err.params as { limit: number }).limit;
      return `${where} must contain at least ${n} item${n === 1 ? '' : 's'}`;
    }
    case 'minLength':
      return `${where} must not be empty`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const p = err.params as { comparison: string; limit: number };
      return `${where} must be ${p.comparison} ${p.limit}`;
    }
    default:
      return `${where} ${err.message ?? 'is invalid'}`;
  }
}

/** Validate a chat request (library calls); throws InvalidRequestError naming the field. */
export function validateChatRequest(input: unknown): ChatRequest {
  if (!validateChat(input)) throw new InvalidRequestError(describeSchemaError(validateChat, 'chat request'));
  const req = input as ChatRequest;
  if (!req.messages.some((m) => m.role === 'user')) {
    throw new InvalidRequestError('chat request must contain at least one message with role "user"');
  }
  return req;
}
