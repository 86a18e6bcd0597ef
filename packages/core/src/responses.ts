import type { ToolAdapter } from './adapter.js';
import type { ChatResponse, ChatResult } from './types.js';

/**
 * The wire response of one answered chat, from a library result: the one builder used by the
 * facade, the fallback engine, the bridge's JSON and SSE answers. `latencyMs` is the caller's
 * whole wait (queue, sessions, the tool).
 */
export function toChatResponse(
  adapter: Pick<ToolAdapter, 'id' | 'type'>,
  result: ChatResult,
  latencyMs: number,
  requestedModel?: string,
): ChatResponse {
  const { toolId: _t, latencyMs: _l, ...metadata } = result.metadata;
  return {
    toolId: adapter.id,
    type: adapter.type,
    model: result.model ?? requestedModel ?? 'default',
    ...(result.sessionId ? { sessionId: result.sessionId } : {}),
    result: {
      message: { role: 'assistant', content: result.message.content },
      usage: result.usage,
      ...(result.object !== undefined ? { object: result.object } : {}),
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    },
    ...(result.activities && result.activities.length > 0 ? { activities: result.activities } : {}),
    latencyMs: Math.round(latencyMs),
  };
}
