import { describe, expect, it } from '@jest/globals';
import { ProviderExecutionError } from '@toolbridge/core';
import { readNdjson } from './ndjson.js';

function streamOf(parts: Uint8Array[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++]!);
      else controller.close();
    },
    cancel() {
      onCancel?.();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const o of readNdjson(stream, { toolId: 'ollama' })) out.push(o);
  return out;
}

const objects = [
  { message: { role: 'assistant', content: 'Grüße 👋 ' }, done: false },
  { message: { role: 'assistant', content: '日本語' }, done: false },
  { done: true, eval_count: 2 },
];
const bytes = new TextEncoder().encode(objects.map((o) => JSON.stringify(o)).join('\n') + '\n');

describe('readNdjson', () => {
  it('yields the same objects wherever the byte stream is split (mid-line, mid-character)', async () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      const parts = [bytes.subarray(0, cut), bytes.subarray(cut)];
      expect(await collect(streamOf(parts))).toEqual(objects);
    }
  });

  it('handles one byte per chunk', async () => {
    const parts = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(await collect(streamOf(parts))).toEqual(objects);
  });

  it('reads a last object without a trailing newline and skips blank lines', async () => {
    const text = '\n{"a":1}\r\n\n{"b":2}';
    expect(await collect(streamOf([new TextEncoder().encode(text)]))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('refuses a line that is not a JSON object', async () => {
    await expect(collect(streamOf([new TextEncoder().encode('{"a":1}\n<html>\n')]))).rejects.toBeInstanceOf(ProviderExecutionError);
    await expect(collect(streamOf([new TextEncoder().encode('[1,2]\n')]))).rejects.toThrow(/not a JSON object/);
  });

  it('refuses an endless line instead of buffering it', async () => {
    const big = new TextEncoder().encode('{"a":"' + 'x'.repeat(100));
    const it = readNdjson(streamOf([big, big]), { toolId: 'ollama', maxLineChars: 150 });
    await expect(it.next()).rejects.toThrow(/longer than 150/);
  });

  it('cancels the body when the consumer stops early', async () => {
    let cancelled = false;
    const it = readNdjson(
      streamOf([bytes, bytes], () => (cancelled = true)),
      { toolId: 'ollama' },
    );
    expect((await it.next()).value).toEqual(objects[0]);
    await it.return(undefined);
    expect(cancelled).toBe(true);
  });
});
