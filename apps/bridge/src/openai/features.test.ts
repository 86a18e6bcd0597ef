import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createToolbridge, type Toolbridge } from 'toolbridge';
import { makeTempDir, scriptedAdapter, type ScriptedAdapter } from '@toolbridge/test-suite/kit';
import { textOf } from '@toolbridge/core/runtime';
import { serveOpenAI, type OpenAIServer } from './testing/serve.js';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
let toolbridge: Toolbridge;
let server: OpenAIServer;
let agent: ScriptedAdapter;
let home: Awaited<ReturnType<typeof makeTempDir>>;

beforeAll(async () => {
  home = await makeTempDir('toolbridge-v1-features-');
  agent = scriptedAdapter('agent', {
    features: { images: true },
    detectedCapabilities: ['vision'],
    script: (request) => {
      const last = textOf(request.messages.at(-1)!);
      if (last.includes('JSON')) return { deltas: ['{"city":"Paris"}'] };
      return {
        deltas: [
          `I got ${request.messages.length} message(s) and ${request.messages.flatMap((m) => m.content).filter((p) => p.type === 'image').length} image(s)`,
        ],
      };
    },
  });
  toolbridge = createToolbridge({ adapters: [agent], env: { HOME: home.dir } });
  server = await serveOpenAI(toolbridge);
});
afterAll(async () => {
  await server.close();
  await toolbridge.close();
  await home.cleanup();
});

describe('/v1 structured output, images and sessions, with the official client', () => {
  it('answers response_format json_schema with JSON that matches it (and json_object)', async () => {
    const c = await server.client.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: 'Capital of France?' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'capital', schema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } } },
      },
    });
    expect(JSON.parse(c.choices[0]!.message.content!)).toEqual({ city: 'Paris' });
    const o = await server.client.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: 'Capital?' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(o.choices[0]!.message.content!)).toEqual({ city: 'Paris' });
  });

  it('a JSON answer that does not match its schema, even after the repair turn, is a 502 schema_mismatch with the errors', async () => {
    const error = await server.client.chat.completions
      .create({
        model: 'agent',
        messages: [{ role: 'user', content: 'Capital of France?' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'n', schema: { type: 'object', required: ['population'], properties: { population: { type: 'integer' } } } },
        },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(502);
    expect(error.code).toBe('schema_mismatch');
    expect(JSON.stringify(error.error.errors)).toContain('population');
  });

  it('refuses an invalid schema in OpenAI’s error shape', async () => {
    const error = await server.client.chat.completions
      .create({
        model: 'agent',
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'bad', schema: { type: 'nope' } } },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toMatch(/not a valid JSON Schema/);
  });

  it('sends image_url parts with data: URLs to the tool as images', async () => {
    const c = await server.client.chat.completions.create({
      model: 'agent',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
    expect(c.choices[0]!.message.content).toBe('I got 1 message(s) and 1 image(s)');
    expect(agent.requests.at(-1)!.messages[0]!.content[1]).toMatchObject({ type: 'image', mediaType: 'image/png', data: PNG });
  });

  it('continues a conversation with session_id, plain and streamed (the last chunk carries it)', async () => {
    const first = (await server.client.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: 'Remember 7' }],
    })) as unknown as { session_id: string };
    expect(first.session_id).toMatch(/^tbs_/);
    const body = {
      model: 'agent',
      messages: [{ role: 'user' as const, content: 'What number?' }],
      session_id: first.session_id,
      stream: true as const,
    };
    const stream = await server.client.chat.completions.create(body as never);
    const chunks: Array<{ session_id?: string; choices: Array<{ delta: { content?: string } }> }> = [];
    for await (const chunk of stream as unknown as AsyncIterable<(typeof chunks)[number]>) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('I got 3 message(s) and 0 image(s)');
    expect(chunks.at(-1)!.session_id).toBe(first.session_id);
    const missing = await server.client.chat.completions
      .create({ model: 'agent', messages: [{ role: 'user', content: 'x' }], session_id: 'tbs_unknownsession' } as never)
      .catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
