import type { ChatContext, ChatResult, StreamEvent, ToolRequest } from '@toolbridge/core';

/** An adapter's `stream` from a function that answers at once: one `result` event, or its error. */
export function streamFrom(answer: (request: ToolRequest, ctx: ChatContext) => Promise<ChatResult>) {
  return async function* (request: ToolRequest, ctx: ChatContext): AsyncGenerator<StreamEvent> {
    yield { type: 'result', result: await answer(request, ctx) };
  };
}

/** What an adapter receives for a plain text chat request (core's normalised form), for tests that compare requests. */
export function toolRequestOf(request: {
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  model?: string;
  maxTokens?: number;
  temperature?: number;
}): ToolRequest {
  const { messages, ...rest } = request;
  return { ...rest, messages: messages.map((m) => ({ role: m.role, content: [{ type: 'text', text: m.content }] })), additionalDirs: [] };
}
