import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { AGENT_CAPABILITIES, type StreamEvent, type ToolAdapter } from '@toolbridge/core';
import { memoryAdapter } from './testing/adapters.js';
import { startTestBridge, type TestBridge } from './testing/harness.js';

/** A tool that yields `count` deltas of 64 KiB as fast as it is allowed to, counting them. */
function firehose(count: number) {
  const produced = { n: 0 };
  const chunk = 'x'.repeat(64 * 1024);
  const adapter: ToolAdapter = {
    specificationVersion: 'v1',
    id: 'firehose',
    name: 'Firehose',
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    features: {},
    configSchema: {},
    detect: async () => ({ available: true, version: '1', models: [] }),
    async *stream(): AsyncIterable<StreamEvent> {
      for (let i = 0; i < count; i++) {
        produced.n++;
        yield { type: 'delta', text: chunk };
      }
      yield { type: 'result', result: { message: { role: 'assistant', content: '' }, usage: {}, metadata: {} } };
    },
  };
  return { adapter, produced };
}

/** A tool whose stream ends without its final result (a tool bug or a truncated answer). */
const truncated: ToolAdapter = {
  ...memoryAdapter('truncated'),
  async *stream(): AsyncIterable<StreamEvent> {
    yield { type: 'delta', text: 'half an ans' };
  },
};

describe('bridge robustness', () => {
  const hose = firehose(2000);
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge([hose.adapter, truncated]);
  });
  afterAll(() => bridge.close());

  it('answers a badly percent-encoded path with 400, not 500', async () => {
    for (const path of ['/health/%zz', '/chat/%E0%A4%A']) {
      const res = await bridge.request(path, {
        method: path.startsWith('/chat') ? 'POST' : 'GET',
        json: path.startsWith('/chat') ? {} : undefined,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    const v1 = await bridge.request('/v1/models/%zz');
    expect(v1.status).toBe(400);
    expect(await v1.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_request' } });
  });

  it('a tool that ends without a result is a 502 whether streamed or not', async () => {
    const plain = await bridge.request('/chat/truncated', { method: 'POST', json: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(plain.status).toBe(502);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('provider_execution_failed');
  });

  it('slows the tool down for a client that reads slowly (SSE backpressure) instead of buffering', async () => {
    const url = new URL(bridge.url);
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'go' }], stream: true });
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /chat/firehose HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause(); // read nothing
    await new Promise((r) => setTimeout(r, 1500));
    // 2000 × 64 KiB = 125 MiB; socket buffers hold a few MiB, so only a few dozen deltas may be produced.
    expect(hose.produced.n).toBeGreaterThan(0);
    expect(hose.produced.n).toBeLessThan(400);
    socket.destroy();
  });
});
