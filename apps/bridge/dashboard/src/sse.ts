/**
 * Server-Sent Events read from a fetch body. EventSource cannot POST or send
 * an Authorization header, so the playground reads the stream itself.
 */

export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Incremental parser of the text/event-stream format: feed it text in any
 * chunking, get whole messages back. Comments (`: keep-alive`) are skipped;
 * a block without `data` dispatches nothing, as in browsers.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // A lone \r at the end may be the first half of \r\n split across chunks.
      if (m[0] === '\r' && m.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  /** The stream ended: a last message without its blank line is incomplete and dropped (as browsers do). */
  end(): SseMessage[] {
    this.buffer = '';
    this.event = '';
    this.data = [];
    return [];
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      const message = this.data.length ? { event: this.event || 'message', data: this.data.join('\n') } : undefined;
      this.event = '';
      this.data = [];
      return message;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return undefined;
  }
}

/** Read a whole event stream, calling `onMessage` as each message completes. */
export async function readSseStream(body: ReadableStream<Uint8Array>, onMessage: (message: SseMessage) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const message of parser.push(decoder.decode(value, { stream: true }))) onMessage(message);
    }
    for (const message of parser.push(decoder.decode())) onMessage(message);
    parser.end();
  } finally {
    reader.releaseLock();
  }
}
