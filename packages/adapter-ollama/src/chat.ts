import { messageText } from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { postStream, type Connection } from './client.js';
import { ChatAccumulator, optionsOf } from './events.js';

/** One chat over `POST /api/chat` (NDJSON): roles stay roles, Ollama applies the model's own chat template. */
export async function* chatTurn(
  conn: Connection,
  model: string,
  request: ToolRequest,
  ctx: ChatContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const body = {
    model,
    messages: request.messages.map((m) => ({ role: m.role, content: messageText(m) })),
    stream: true,
    ...optionsOf(request),
  };
  const chat = new ChatAccumulator();
  for await (const chunk of postStream(conn, '/api/chat', body, model, ctx.signal)) yield* chat.push(chunk);
  yield { type: 'result', result: chat.result(model) };
}
