import { imagesOf, renderConversation } from '@toolbridge/adapter-kit';
import type { ToolMessage } from '@toolbridge/core';

/** A content block of a stream-json user message (Messages API shape). */
export type InputBlock = { type: 'text'; text: string } | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } };

/**
 * Claude Code runs a user message whose text starts with `/` as one of its own commands (`/clear`
 * resets the conversation, `/cost` answers locally) instead of sending it to the model, in any
 * text block of the message (measured on 2.1.330; `--disable-slash-commands` only changes the
 * local answer). A leading newline keeps the text the caller's.
 */
function guarded(text: string): string {
  return text.startsWith('/') ? `\n${text}` : text;
}

/**
 * The blocks of the one user message a turn sends. A lone user message keeps its parts in order
 * (images as native image blocks); a longer conversation (a transcript handed over from another
 * tool) is rendered as one labelled text whose image placeholders refer to the images after it.
 */
export function userBlocks(messages: readonly ToolMessage[]): InputBlock[] {
  const turns = messages.filter((m) => m.role !== 'system');
  const image = (p: { mediaType: string; data: string }): InputBlock => ({
    type: 'image',
    source: { type: 'base64', media_type: p.mediaType, data: p.data },
  });
  if (turns.length === 1 && turns[0]!.role === 'user') {
    const blocks = turns[0]!.content.map((p) => (p.type === 'text' ? { type: 'text' as const, text: guarded(p.text) } : image(p)));
    return blocks.filter((b) => b.type !== 'text' || b.text.length > 0);
  }
  const text = renderConversation(messages, { includeSystem: false });
  return [{ type: 'text', text: guarded(text) }, ...imagesOf(messages, { includeSystem: false }).map(image)];
}

/** A stream-json user line (one turn). */
export function userLine(messages: readonly ToolMessage[]): string {
  return JSON.stringify({ type: 'user', message: { role: 'user', content: userBlocks(messages) }, parent_tool_use_id: null }) + '\n';
}

/**
 * The `initialize` control request. Only the first one of a process applies `jsonSchema`, and it
 * keeps the schema out of argv (`--json-schema` takes the text itself, visible in `ps`).
 */
export function initializeLine(requestId: string, jsonSchema?: Record<string, unknown>): string {
  return (
    JSON.stringify({
      type: 'control_request',
      request_id: requestId,
      request: { subtype: 'initialize', ...(jsonSchema ? { jsonSchema } : {}) },
    }) + '\n'
  );
}

/** Any other control request (`interrupt`, `set_model`, `set_permission_mode`, `apply_flag_settings`). */
export function controlLine(requestId: string, request: Record<string, unknown>): string {
  return JSON.stringify({ type: 'control_request', request_id: requestId, request }) + '\n';
}
