import type { StreamEvent } from '@toolbridge/core';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The answer's text as deltas: from partial messages as the model writes, else from whole
 * `assistant` messages (one line per content block, the same message id repeated). Text of a
 * later model call (after a tool call) starts a new paragraph.
 */
export class TextStream {
  /** Text streamed per API message id, from partial messages. */
  private readonly streamed = new Map<string, string>();
  /** Messages whose streamed text Claude Code dropped (a connection it asked again, an interrupt). */
  private readonly abandoned: string[] = [];
  private currentMessageId?: string;
  private lastMessageId?: string;
  /** Everything sent so far. */
  all = '';

  private delta(messageId: string, text: string): StreamEvent[] {
    if (!text) return [];
    const out: StreamEvent[] = [];
    if (this.lastMessageId !== undefined && messageId !== this.lastMessageId) {
      out.push({ type: 'delta', text: '\n\n' });
      this.all += '\n\n';
    }
    this.lastMessageId = messageId;
    this.all += text;
    out.push({ type: 'delta', text });
    return out;
  }

  /** A `stream_event` line's event, and the message it abandons (`abandoned_blocks.api_message_id`), if any. */
  partial(e: Json | undefined, abandoned: string | undefined): StreamEvent[] {
    if (abandoned && this.streamed.get(abandoned)) this.abandoned.push(abandoned);
    if (!e) return [];
    if (e.type === 'message_start') {
      this.currentMessageId = str(obj(e.message)?.id);
      return [];
    }
    if (e.type !== 'content_block_delta') return [];
    const delta = obj(e.delta);
    if (delta?.type !== 'text_delta') return [];
    const id = this.currentMessageId ?? '';
    const text = str(delta.text) ?? '';
    this.streamed.set(id, (this.streamed.get(id) ?? '') + text);
    return this.delta(id, text);
  }

  /**
   * A text block of a whole `assistant` message; nothing when its message was streamed already.
   * After a dropped stream Claude Code asks again without streaming: only what goes beyond the
   * text already sent is new (deltas cannot be taken back).
   */
  whole(id: string, text: string): StreamEvent[] {
    if (this.streamed.has(id)) return [];
    const dropped = this.abandoned.shift();
    const sent = dropped === undefined ? undefined : this.streamed.get(dropped);
    if (sent !== undefined && text.startsWith(sent)) {
      this.lastMessageId = id;
      return this.delta(id, text.slice(sent.length));
    }
    // A different answer than the one cut off: it follows as a paragraph of its own (the result holds it alone).
    return this.delta(id, text);
  }
}
