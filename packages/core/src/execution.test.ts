import { afterEach, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, scriptedAdapter, type ScriptedAdapter } from '@toolbridge/test-suite/kit';
import { InvalidRequestError, ProviderExecutionError } from './errors.js';
import { toErrorEnvelope } from './envelope.js';
import { LIMITS } from './limits.js';
import { createRegistry } from './registry.js';
import { textOf } from './request.js';
import type { StreamEvent } from './adapter.js';
import type { ChatRequest } from './types.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(...adapters: ScriptedAdapter[]) {
  const home = await makeTempDir('toolbridge-exec-');
  const registry = createRegistry({ adapters, env: { HOME: home.dir } });
  cleanups.push(home.cleanup, () => registry.close());
  return registry;
}

const schema = {
  type: 'object',
  required: ['city', 'population'],
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  additionalProperties: false,
};
const ask = (more: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: 'Largest city of France?' }],
  ...more,
});
const answers = (...texts: string[]) => texts.map((t) => ({ deltas: [t.slice(0, 5), t.slice(5)] }));
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('structured answers', () => {
  it('refuses an invalid schema before any tool runs', async () => {
    const tool = scriptedAdapter('t');
    const registry = await setup(tool);
    const error = await registry
      .chat('t', ask({ responseFormat: { type: 'json_schema', schema: { type: 'no-such-type' } } }))
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toMatch(/responseFormat\.schema is not a valid JSON Schema/);
    expect(tool.calls).toHaveLength(0);
  });

  it('asks a tool without a native schema option in words, and returns the parsed object beside the JSON text', async () => {
    const tool = scriptedAdapter('t', { script: answers('```json\n{"city":"Paris","population":2100000}\n```') });
    const registry = await setup(tool);
    const result = await registry.chat('t', ask({ responseFormat: { type: 'json_schema', schema } }));
    expect(result.object).toEqual({ city: 'Paris', population: 2100000 });
    expect(result.message.content).toBe('{"city":"Paris","population":2100000}');
    const sent = textOf(tool.requests[0]!.messages.at(-1)!);
    expect(sent).toContain('Largest city of France?');
    expect(sent).toContain('matches this JSON Schema');
    expect(sent).toContain('"population"');
  });

  it('leaves a native tool its native option (no words added) and still checks the answer', async () => {
    const tool = scriptedAdapter('n', { features: { structuredOutput: 'native' }, script: answers('{"city":"Paris","population":1}') });
    const registry = await setup(tool);
    const result = await registry.chat('n', ask({ responseFormat: { type: 'json_schema', schema, name: 'city' } }));
    expect(result.object).toEqual({ city: 'Paris', population: 1 });
    expect(tool.requests[0]!.responseFormat).toEqual({ type: 'json_schema', schema, name: 'city' });
    expect(textOf(tool.requests[0]!.messages.at(-1)!)).toBe('Largest city of France?');
  });

  it('decides native or prompt per request: a format the tool declines goes in words, without responseFormat', async () => {
    const tool = scriptedAdapter('n', { features: { structuredOutput: 'native' }, script: answers('{"city":"Paris","population":1}') });
    tool.takesFormat = (format) => format.type === 'json_schema';
    const registry = await setup(tool);
    const native = await registry.chat('n', ask({ responseFormat: { type: 'json_schema', schema } }));
    expect(native.metadata.structuredOutput).toBe('native');
    expect(tool.requests[0]!.responseFormat).toEqual({ type: 'json_schema', schema });
    expect(textOf(tool.requests[0]!.messages.at(-1)!)).toBe('Largest city of France?');
    const prompt = await registry.chat('n', ask({ responseFormat: { type: 'json' } }));
    expect(prompt.metadata.structuredOutput).toBe('prompt');
    expect(tool.requests[1]!.responseFormat).toBeUndefined();
    expect(textOf(tool.requests[1]!.messages.at(-1)!)).toMatch(/^Largest city of France\?\s+Answer with a single JSON value only/);
  });

  it('gives an invalid answer exactly one repair turn that shows the errors', async () => {
    const tool = scriptedAdapter('t', { script: answers('{"city":"Paris","population":"lots"}', '{"city":"Paris","population":2100000}') });
    const registry = await setup(tool);
    const result = await registry.chat('t', ask({ responseFormat: { type: 'json_schema', schema } }));
    expect(result.object).toEqual({ city: 'Paris', population: 2100000 });
    expect(tool.calls).toHaveLength(2);
    const repair = tool.requests[1]!.messages;
    expect(repair.at(-2)!.role).toBe('assistant');
    expect(textOf(repair.at(-1)!)).toMatch(/did not match the required format:\n- \/population: must be integer/);
    expect(result.metadata.repairTurns).toBe(1);
  });

  it('repairs through the tool’s own session when it has one', async () => {
    const tool = scriptedAdapter('n', {
      features: { structuredOutput: 'native', sessions: { resume: true, fork: true } },
      script: [
        { deltas: ['not json'], metadata: { nativeSessionId: 'native-1' } },
        { deltas: ['{"city":"Paris","population":3}'], metadata: { nativeSessionId: 'native-1' } },
      ],
    });
    const registry = await setup(tool);
    const result = await registry.chat('n', ask({ responseFormat: { type: 'json' } }));
    expect(result.object).toEqual({ city: 'Paris', population: 3 });
    expect(tool.requests[1]!.resume).toEqual({ nativeSessionId: 'native-1', fork: false });
    expect(tool.requests[1]!.messages).toHaveLength(1);
  });

  it('fails after the repair turn with 502 schema_mismatch and the errors, never the answer', async () => {
    const tool = scriptedAdapter('t', { script: answers('{"city":"SECRET-ANSWER","population":"x"}') });
    const registry = await setup(tool);
    const error = await registry.chat('t', ask({ responseFormat: { type: 'json_schema', schema } })).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(tool.calls).toHaveLength(2);
    const { status, body } = toErrorEnvelope(error);
    expect(status).toBe(502);
    expect(body.error.details).toEqual({ reason: 'schema_mismatch', errors: [{ path: '/population', message: 'must be integer' }] });
    expect(JSON.stringify(body)).not.toContain('SECRET-ANSWER');
  });

  it('streams a checked answer: activity live, the JSON as one delta once it is valid', async () => {
    const tool = scriptedAdapter('t', { script: [{ activity: 'thinking about Paris', deltas: ['{"city":', '"Paris","population":5}'] }] });
    const registry = await setup(tool);
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('t', ask({ responseFormat: { type: 'json_schema', schema } }))) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['activity', 'delta', 'result']);
    expect(events[1]).toEqual({ type: 'delta', text: '{"city":"Paris","population":5}' });
  });
});

describe('images', () => {
  const image = (part: object) => ({
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is it?' },
          { type: 'image' as const, ...part },
        ],
      },
    ],
  });
  const seeing = () => scriptedAdapter('eye', { features: { images: true }, detectedCapabilities: ['vision'] });

  it('sends a checked image to a tool that takes images', async () => {
    const tool = seeing();
    const registry = await setup(tool);
    await registry.discover();
    await registry.chat('eye', image({ data: PNG, mediaType: 'image/png' }));
    expect(tool.requests[0]!.messages[0]!.content[1]).toEqual({ type: 'image', mediaType: 'image/png', data: PNG, bytes: 70 });
  });

  it('reads a local file for the library, sniffing its type', async () => {
    const tool = seeing();
    const registry = await setup(tool);
    const dir = await makeTempDir();
    cleanups.push(dir.cleanup);
    const file = path.join(dir.dir, 'dot.png');
    await writeFile(file, Buffer.from(PNG, 'base64'));
    await registry.chat('eye', image({ path: file }));
    expect(tool.requests[0]!.messages[0]!.content[1]).toMatchObject({ type: 'image', mediaType: 'image/png', data: PNG });
  });

  it.each([
    [{ url: 'https://example.com/cat.png' }, /remote image URLs are not fetched/],
    [{ data: PNG, mediaType: 'image/jpeg' }, /says image\/jpeg but its bytes are image\/png/],
    [{ data: PNG }, /needs a "mediaType"/],
    [{ data: 'not base64!', mediaType: 'image/png' }, /is not base64/],
    [{ data: Buffer.from('hello').toString('base64'), mediaType: 'image/png' }, /is not a PNG, JPEG, GIF or WebP image/],
    [{ data: PNG, mediaType: 'image/png', path: '/x.png' }, /exactly one of "data"/],
    [{ path: '/nonexistent/x.png' }, /cannot read image file/],
  ])('refuses %j with a clear invalid_request before running', async (part, message) => {
    const tool = seeing();
    const registry = await setup(tool);
    const error = await registry.chat('eye', image(part)).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toMatch(message);
    expect(tool.calls).toHaveLength(0);
  });

  it('bounds the size and the number of images', async () => {
    const registry = await setup(seeing());
    const big = Buffer.alloc(LIMITS.maxImageBytes + 10);
    Buffer.from(PNG, 'base64').copy(big);
    await expect(registry.chat('eye', image({ data: big.toString('base64'), mediaType: 'image/png' }))).rejects.toThrow(
      /larger than the 10 MiB/,
    );
    const many = {
      messages: [
        {
          role: 'user' as const,
          content: Array.from({ length: LIMITS.maxImages + 1 }, () => ({
            type: 'image' as const,
            data: PNG,
            mediaType: 'image/png' as const,
          })),
        },
      ],
    };
    await expect(registry.chat('eye', many)).rejects.toThrow(/at most 8 images/);
  });

  it('refuses images for a tool that cannot take them, naming the tool', async () => {
    const blind = scriptedAdapter('blind');
    const registry = await setup(blind);
    const error = await registry.chat('blind', image({ data: PNG, mediaType: 'image/png' })).catch((e) => e);
    expect(error).toMatchObject({ code: 'invalid_request', toolId: 'blind', publicDetails: { reason: 'unsupported', feature: 'images' } });
    expect(error.message).toMatch(/Tool blind cannot take images/);
    expect(blind.calls).toHaveLength(0);
  });
});

describe('images and named models', () => {
  it('lets the adapter judge a named model even when the default model has no vision', async () => {
    const tool = scriptedAdapter('runtime', { features: { images: true } });
    const registry = await setup(tool);
    await registry.discover(); // the default model: no vision
    const request = {
      model: 'a-vision-model',
      messages: [{ role: 'user' as const, content: [{ type: 'image' as const, data: PNG, mediaType: 'image/png' as const }] }],
    };
    await registry.chat('runtime', request);
    expect(tool.calls).toHaveLength(1);
    await expect(registry.chat('runtime', { ...request, model: undefined })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
