import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createToolbridge } from 'toolbridge';
import { startServer, type RequestLogEntry, type RunningBridge } from '../index.js';
import { createFakeAdapter } from './testing/fake-adapter.js';

const SECRET_PROMPT = 'my secret prompt 7f3a';

describe('/v1 inside the bridge, behind its security middleware', () => {
  const logs: RequestLogEntry[] = [];
  const toolbridge = createToolbridge({
    adapters: [createFakeAdapter({ id: 'agent', behaviour: { deltas: ['bridged ', 'answer'] } })],
    env: {},
  });
  let bridge: RunningBridge;
  let client: OpenAI;

  beforeAll(async () => {
    bridge = await startServer({ port: 0, token: 's3cret-token', toolbridge, logger: (e) => logs.push(e) });
    client = new OpenAI({ apiKey: 's3cret-token', baseURL: `${bridge.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => bridge.close());

  it('takes the bearer token as the OpenAI API key', async () => {
    const c = await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: SECRET_PROMPT }] });
    expect(c.choices[0]!.message.content).toBe('bridged answer');
    const chunks: string[] = [];
    const stream = await client.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: SECRET_PROMPT }],
      stream: true,
    });
    for await (const chunk of stream) chunks.push(chunk.choices[0]?.delta.content ?? '');
    expect(chunks.join('')).toBe('bridged answer');
  });

  it('refuses a wrong API key with 401 before any tool runs', async () => {
    const wrong = new OpenAI({ apiKey: 'not-the-token', baseURL: `${bridge.url}/v1`, maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it("answers the bridge's own rules on /v1 in OpenAI's error shape", async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${bridge.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer s3cret-token', ...headers }, body });
    const cases: Array<[Response, number, string]> = [
      [await post({ 'content-type': 'text/plain' }, 'hi'), 415, 'unsupported_media_type'],
      [await post({ 'content-type': 'application/json' }, '{"model":'), 400, 'invalid_request'],
      [await post({ 'content-type': 'application/json', origin: 'https://evil.example' }, '{}'), 403, 'forbidden'],
      [await fetch(`${bridge.url}/v1/models`), 401, 'unauthorized'],
    ];
    for (const [res, status, code] of cases) {
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { message: string; type: string; code: string; param: unknown } };
      expect(body.error).toEqual({ message: expect.any(String), type: expect.any(String), param: null, code });
    }
  });

  it('logs route, tool and stream flag for /v1 calls, never the prompt or the answer', async () => {
    const chat = logs.filter((e) => e.route === '/v1/chat/completions' && e.status === 200);
    expect(chat.map((e) => [e.toolId, Boolean(e.stream)])).toEqual([
      ['agent', false],
      ['agent', true],
    ]);
    const text = JSON.stringify(logs);
    expect(text).not.toContain(SECRET_PROMPT);
    expect(text).not.toContain('bridged');
  });
});
