import type { ToolAdapter } from './adapter.js';
import type { ChatResponse, ChatResult } from './types.js';

/** The spec's single-tool chat response from a library result. */
export function toChatResponse(
  adapter: Pick<ToolAdapter, 'id' | 'type'>,
  result: ChatResult,
  latencyMs: number,
  requestedModel?: string,
): ChatResponse {
  return {
    toolId: adapter.id,
    type: adapter.type,
    model: result.model ?? requestedModel ?? 'default',
    result: { message: { role: 'assistant', content: result.message.content }, usage: result.usage },
    latencyMs: Math.round(latencyMs),
  };
}
