import { describe, expect, it } from '@jest/globals';
import { readSseStream, SseParser, type SseMessage } from './sse.js';

describe('SseParser', () => {
  it('parses the events the bridge sends, skipping keep-alive comments', () => {
    const p = new SseParser();
    const text =
      'event: delta\ndata: {"text":"Hel"}\n\n: keep-alive\n\nevent: delta\ndata: {"text":"lo"}\n\nevent: done\ndata: {"toolId":"ollama"}\n\n';
    expect(p.push(text)).toEqual([
      { event: 'delta', data: '{"text":"Hel"}' },
      { event: 'delta', data: '{"text":"lo"}' },
      { event: 'done', data: '{"toolId":"ollama"}' },
    ]);
  });

  it('gives the same messages however the text is chunked, even one character at a time', () => {
    const text = 'event: attempt\r\ndata: {"a":1}\r\n\r\nevent: delta\rdata: x\r\rdata: line1\ndata: line2\n\n';
    const whole = new SseParser().push(text);
    const p = new SseParser();
    const pieces: SseMessage[] = [];
    for (const ch of text) pieces.push(...p.push(ch));
    expect(pieces).toEqual(whole);
    expect(whole).toEqual([
      { event: 'attempt', data: '{"a":1}' },
      { event: 'delta', data: 'x' },
      { event: 'message', data: 'line1\nline2' },
    ]);
  });

  it('keeps a value without the optional space, and drops blocks without data', () => {
    const p = new SseParser();
    expect(p.push('event:error\ndata:{"e":1}\n\nevent: lonely\n\n')).toEqual([{ event: 'error', data: '{"e":1}' }]);
  });

  it('drops an unterminated last message, as browsers do', () => {
    const p = new SseParser();
    expect(p.push('event: done\ndata: {}')).toEqual([]);
    expect(p.end()).toEqual([]);
  });
});

describe('readSseStream', () => {
  it('decodes UTF-8 split across chunks and reports messages in order', async () => {
    const bytes = new TextEncoder().encode('event: delta\ndata: {"text":"héllo ✓"}\n\nevent: done\ndata: {}\n\n');
    const chunks = [bytes.slice(0, 27), bytes.slice(27, 29), bytes.slice(29)]; // splits inside "é"
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
    const seen: SseMessage[] = [];
    await readSseStream(body, (m) => seen.push(m));
    expect(seen).toEqual([
      { event: 'delta', data: '{"text":"héllo ✓"}' },
      { event: 'done', data: '{}' },
    ]);
  });
});
