import type { ErrorObject, ValidateFunction } from 'ajv';
import { IMAGE_MEDIA_TYPES, type ChatMessage, type ContentPart, type ImageMediaType, type ResponseFormat } from '@toolbridge/core';
import { createAjv, describeSchemaError } from '@toolbridge/core/runtime';
import { OpenAIRequestError } from './errors.js';

/**
 * JSON Schema of the `POST /v1/chat/completions` body: the subset of OpenAI's
 * Chat Completions request Toolbridge honours. Other OpenAI fields (`top_p`,
 * `stop`, `seed`, `user`, `metadata`, ...) are accepted and ignored so existing
 * clients keep working; the ones whose meaning cannot be honoured (tool calling,
 * several choices, log-probs, structured output, audio) are refused by
 * `parseChatCompletionRequest` with a 400 naming the field.
 */
export const chatCompletionRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1 },
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['role'],
        properties: {
          role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
          content: {
            type: ['string', 'array', 'null'],
            items: {
              type: 'object',
              required: ['type'],
              properties: {
                type: { type: 'string' },
                text: { type: 'string' },
                image_url: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, detail: { type: 'string' } } },
              },
            },
          },
          name: { type: 'string' },
        },
      },
    },
    stream: { type: ['boolean', 'null'] },
    stream_options: {
      type: ['object', 'null'],
      properties: { include_usage: { type: ['boolean', 'null'] } },
    },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    n: { type: ['integer', 'null'], minimum: 1 },
    logprobs: { type: ['boolean', 'null'] },
    tools: { type: ['array', 'null'] },
    functions: { type: ['array', 'null'] },
    response_format: {
      type: ['object', 'null'],
      required: ['type'],
      properties: {
        type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] },
        json_schema: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string' },
            schema: { type: 'object' },
            strict: { type: ['boolean', 'null'] },
            description: { type: 'string' },
          },
        },
      },
    },
    session_id: { type: ['string', 'null'] },
    modalities: { type: ['array', 'null'], items: { type: 'string' } },
  },
} as const;

// One compiled validator for the life of the process (union types for the `["x","null"]` fields).
const validate: ValidateFunction = createAjv().compile(chatCompletionRequestSchema);

export interface ChatCompletionRequest {
  /** The model id as sent (echoed in responses). */
  model: string;
  messages: ChatMessage[];
  responseFormat?: ResponseFormat;
  /** Toolbridge's session to continue (`session_id`). */
  sessionId?: string;
  stream: boolean;
  includeUsage: boolean;
  maxTokens?: number;
  temperature?: number;
}

/** `/messages/0/content` → `messages[0].content`, the way OpenAI names params. */
export function paramOf(instancePath: string): string | null {
  if (!instancePath) return null;
  return instancePath
    .slice(1)
    .split('/')
    .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : i === 0 ? seg : `.${seg}`))
    .join('');
}

/** The OpenAI `param` an error is about: the field itself, or the missing one inside it. */
function paramOfError(err: ErrorObject): string | null {
  const param = paramOf(err.instancePath);
  if (err.keyword !== 'required') return param;
  const missing = (err.params as { missingProperty: string }).missingProperty;
  return param ? `${param}.${missing}` : missing;
}

function unsupported(param: string, what: string): OpenAIRequestError {
  return new OpenAIRequestError(400, `'${param}' is not supported: ${what}.`, param, 'unsupported_parameter');
}

/** `data:image/png;base64,...` → an image part; anything else (a remote URL) is refused, never fetched. */
function imageOf(url: string, param: string): ContentPart {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!m) {
    const remote = /^https?:/i.test(url);
    throw new OpenAIRequestError(
      400,
      remote
        ? `Invalid image '${param}.image_url.url': remote image URLs are not fetched; send the image as a data URL (data:image/png;base64,...).`
        : `Invalid image '${param}.image_url.url': expected a data URL (data:image/png;base64,...).`,
      `${param}.image_url.url`,
      'invalid_image_url',
    );
  }
  if (!IMAGE_MEDIA_TYPES.includes(m[1] as ImageMediaType)) {
    throw new OpenAIRequestError(
      400,
      `Invalid image '${param}': ${JSON.stringify(m[1]!.slice(0, 40))} is not one of ${IMAGE_MEDIA_TYPES.join(', ')}.`,
      `${param}.image_url.url`,
      'invalid_image_url',
    );
  }
  return { type: 'image', mediaType: m[1] as ImageMediaType, data: m[2]! };
}

/** One message's content: a string, or its `text` (joined by newlines) and `image_url` parts. */
function contentOf(content: unknown, index: number, role: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) {
    throw new OpenAIRequestError(400, `Missing required parameter: 'messages[${index}].content'.`, `messages[${index}].content`);
  }
  const parts = content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
  const out: ContentPart[] = [];
  parts.forEach((part, j) => {
    const param = `messages[${index}].content[${j}]`;
    if (part.type === 'text') {
      if (typeof part.text !== 'string') {
        throw new OpenAIRequestError(400, `Missing required parameter: '${param}.text'.`, `${param}.text`);
      }
      // Adjacent text parts become one, as before: most tools take a single text per message.
      const last = out.at(-1);
      if (last?.type === 'text') last.text += `\n${part.text}`;
      else out.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url' && part.image_url && role === 'user') {
      out.push(imageOf(part.image_url.url, param));
    } else if (part.type === 'refusal') {
      // An earlier assistant refusal carries no text the tool needs.
    } else {
      throw new OpenAIRequestError(
        400,
        `Invalid content part '${param}': type '${part.type}' is not supported here; Toolbridge takes 'text' parts, and 'image_url' parts in user messages.`,
        `${param}.type`,
        'unsupported_content',
      );
    }
  });
  return out.every((p) => p.type === 'text') ? out.map((p) => (p as { text: string }).text).join('\n') : out;
}

/** OpenAI's `response_format` as Toolbridge's `responseFormat` (`text` means none). */
function responseFormatOf(raw: unknown): ResponseFormat | undefined {
  const f = raw as { type?: string; json_schema?: { name: string; schema?: Record<string, unknown> } } | null | undefined;
  if (!f || f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json' };
  if (!f.json_schema?.schema)
    throw new OpenAIRequestError(
      400,
      "Missing required parameter: 'response_format.json_schema.schema'.",
      'response_format.json_schema.schema',
    );
  const name = f.json_schema.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return { type: 'json_schema', schema: f.json_schema.schema, ...(name ? { name } : {}) };
}

/** Validate and translate an OpenAI chat completion body; throws OpenAIRequestError (400) naming the field. */
export function parseChatCompletionRequest(body: unknown): ChatCompletionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OpenAIRequestError(400, 'The request body must be a JSON object.', null);
  }
  if (!validate(body)) {
    const message = describeSchemaError(validate, { subject: 'request body', nameOf: (p) => paramOf(p) ?? 'request body' });
    throw new OpenAIRequestError(400, `${message}.`, paramOfError(validate.errors![0]!));
  }
  const b = body as Record<string, unknown> & {
    model: string;
    messages: Array<{ role: string; content?: unknown }>;
  };

  if (typeof b.n === 'number' && b.n > 1) throw unsupported('n', 'each request yields exactly one choice');
  if (b.logprobs === true) throw unsupported('logprobs', 'the tools do not report token log-probabilities');
  const responseFormat = responseFormatOf(b.response_format);
  const modalities = b.modalities as string[] | null | undefined;
  if (modalities?.some((m) => m !== 'text')) throw unsupported('modalities', "only 'text' output is available");
  if (Array.isArray(b.tools) && b.tools.length > 0)
    throw unsupported('tools', 'Toolbridge tools answer in text and do not call client-side functions');
  if (Array.isArray(b.functions) && b.functions.length > 0)
    throw unsupported('functions', 'Toolbridge tools answer in text and do not call client-side functions');

  const messages: ChatMessage[] = b.messages.map((m, i) => {
    if (m.role === 'tool' || m.role === 'function') {
      throw new OpenAIRequestError(
        400,
        `Invalid value for 'messages[${i}].role': role '${m.role}' is not supported; Toolbridge tools do not call client-side functions.`,
        `messages[${i}].role`,
        'unsupported_parameter',
      );
    }
    // `developer` is OpenAI's newer name for system instructions.
    const role = m.role === 'developer' ? 'system' : (m.role as ChatMessage['role']);
    return { role, content: contentOf(m.content, i, role) } as ChatMessage;
  });
  if (!messages.some((m) => m.role === 'user')) {
    throw new OpenAIRequestError(400, "'messages' must contain at least one message with role 'user'.", 'messages');
  }

  const maxTokens = (b.max_completion_tokens ?? b.max_tokens) as number | null | undefined;
  const temperature = b.temperature as number | null | undefined;
  const streamOptions = b.stream_options as { include_usage?: boolean | null } | null | undefined;
  return {
    model: b.model,
    messages,
    stream: b.stream === true,
    includeUsage: b.stream === true && streamOptions?.include_usage === true,
    ...(typeof maxTokens === 'number' ? { maxTokens } : {}),
    ...(typeof temperature === 'number' ? { temperature } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(typeof b.session_id === 'string' ? { sessionId: b.session_id } : {}),
  };
}
