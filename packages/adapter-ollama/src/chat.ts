import { type ChatContext, type ResponseFormat, type StreamEvent, type ToolMessage, type ToolRequest } from '@toolbridge/core';
import { jsonInstruction } from '@toolbridge/core/runtime';
import { postStream, type Connection } from './client.js';
import { ChatAccumulator, optionsOf } from './events.js';
import { noVisionError, type ModelCapabilities } from './models.js';
import type { ReasoningThrottle } from './reasoning.js';

/** One message of `/api/chat`. */
export interface OllamaMessage {
  role: string;
  content: string;
  /** Base64 of each image, without a `data:` prefix (Ollama decodes them as bytes). */
  images?: string[];
}

/**
 * A message as Ollama takes it: its text, and its images natively in `images`. Ollama puts the
 * images ahead of the text itself; an `[img]` marker could place them elsewhere, but only for
 * models without a built-in renderer (others would read the marker as text), so none is sent.
 */
export function toOllamaMessage(message: ToolMessage): OllamaMessage {
  const content = message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const images = message.content.flatMap((p) => (p.type === 'image' ? [p.data] : []));
  return { role: message.role, content, ...(images.length > 0 ? { images } : {}) };
}

/**
 * Ollama's docs advise saying in the prompt what `format` enforces: without it a model can pad
 * its answer with whitespace, and the schema as text grounds it. It goes in the system message
 * (added, or appended to the caller's), so a repair turn resends exactly what the model saw.
 */
function grounded(messages: OllamaMessage[], format: ResponseFormat): OllamaMessage[] {
  const instruction = jsonInstruction(format);
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ ...first, content: `${first.content}\n\n${instruction}` }, ...rest];
  return [{ role: 'system', content: instruction }, ...messages];
}

/** The body of `POST /api/chat`: roles stay roles (Ollama applies the model's chat template), `format` is the schema or `"json"`. */
export function chatBody(model: string, request: ToolRequest): Record<string, unknown> {
  const format = request.responseFormat;
  const messages = request.messages.map(toOllamaMessage);
  return {
    model,
    messages: format ? grounded(messages, format) : messages,
    stream: true,
    ...(format ? { format: format.type === 'json_schema' ? format.schema : 'json' } : {}),
    ...optionsOf(request),
  };
}

export interface ChatDeps {
  conn: Connection;
  model: string;
  capabilities: ModelCapabilities;
  throttle?: ReasoningThrottle;
}

/**
 * One chat over `POST /api/chat` (NDJSON). Images go only to a model whose `/api/show`
 * capabilities include `vision`: Ollama itself does not check, and a model without an image
 * encoder fails late or answers as if it had seen nothing.
 */
export async function* chatTurn(deps: ChatDeps, request: ToolRequest, ctx: ChatContext): AsyncGenerator<StreamEvent, void, undefined> {
  const { conn, model } = deps;
  if (request.messages.some((m) => m.content.some((p) => p.type === 'image'))) {
    const capabilities = await deps.capabilities.of(conn, model, ctx.signal);
    if (!capabilities.includes('vision')) throw noVisionError(model, capabilities);
  }
  const chat = new ChatAccumulator(deps.throttle);
  try {
    for await (const chunk of postStream(conn, '/api/chat', chatBody(model, request), model, ctx.signal)) yield* chat.push(chunk);
  } catch (e) {
    yield* chat.fail();
    throw e;
  }
  yield { type: 'result', result: chat.result(model) };
}
