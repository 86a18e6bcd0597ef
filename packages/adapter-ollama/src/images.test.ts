import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { InvalidRequestError, TimeoutError, type ChatRequest, type ToolbridgeConfig } from '@toolbridge/core';
import { createCallContext, createRegistry } from '@toolbridge/core/runtime';
import { adapterChat, waitFor } from '@toolbridge/test-suite/kit';
import { createOllamaAdapter } from './adapter.js';
import { startFakeOllama, type FakeOllama } from './testing/fake-ollama.js';

let fake: FakeOllama;

/** A PNG signature and header, then random bytes: every byte value, checked to arrive unchanged. */
const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(48 * 1024)]);
const jpeg = Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), randomBytes(4096)]);

const withImages = (model?: string): ChatRequest => ({
  ...(model ? { model } : {}),
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in ' },
        { type: 'image', data: png.toString('base64'), mediaType: 'image/png' },
        { type: 'text', text: 'and in this one?' },
        { type: 'image', data: jpeg.toString('base64'), mediaType: 'image/jpeg' },
      ],
    },
  ],
});

const ctxFor = (config: ToolbridgeConfig = {}) =>
  createCallContext({ config: { ollamaHost: fake.url, ...config }, env: {}, toolId: 'ollama' }, {}).ctx;
const shows = () => fake.requests.filter((r) => r.path === '/api/show');
const registryFor = () => createRegistry({ adapters: [createOllamaAdapter()], env: { OLLAMA_HOST: fake.url } });

beforeAll(async () => {
  fake = await startFakeOllama();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.options.models = ['gemma3:4b', 'qwen3:14b'];
  fake.options.legacyShow = false;
});

describe('vision in discovery', () => {
  it('reports vision when the default model has it (from /api/show)', async () => {
    expect(await createOllamaAdapter().detect(ctxFor())).toMatchObject({ defaultModel: 'gemma3:4b', capabilities: ['vision'] });
    expect(shows().map((r) => r.json)).toEqual([{ model: 'gemma3:4b' }]);
    const d = await createOllamaAdapter().detect(ctxFor({ ollamaModel: 'qwen3:14b' }));
    expect(d.defaultModel).toBe('qwen3:14b');
    expect(d).not.toHaveProperty('capabilities');
  });

  it('reads an older server without `capabilities` by its projector', async () => {
    fake.options.legacyShow = true;
    expect((await createOllamaAdapter().detect(ctxFor())).capabilities).toEqual(['vision']);
    expect(await createOllamaAdapter().detect(ctxFor({ ollamaModel: 'qwen3:14b' }))).not.toHaveProperty('capabilities');
  });

  it('stays available without vision when /api/show fails', async () => {
    fake.set('/api/show', { kind: 'status', status: 500, error: 'boom' });
    const d = await createOllamaAdapter().detect(ctxFor());
    expect(d).toMatchObject({ available: true, defaultModel: 'gemma3:4b' });
    expect(d).not.toHaveProperty('capabilities');
  });

  it('shows in the registry: the tool lists vision beside its static capabilities, and declares images', async () => {
    const registry = registryFor();
    try {
      const [tool] = await registry.discover();
      expect(tool!.capabilities).toEqual(['chat', 'completion', 'model-list', 'health-check', 'vision']);
      expect(tool!.features).toMatchObject({ images: true });
    } finally {
      await registry.close();
    }
  });
});

describe('images to a chat', () => {
  it('arrive natively in `images`, base64 without a prefix, every byte intact, in order; the text stays text', async () => {
    const registry = registryFor();
    try {
      const result = await registry.chat('ollama', withImages());
      expect(result.message.content).toBe('Hello! How can I help you today?');
    } finally {
      await registry.close();
    }
    const [sent] = fake.chats;
    expect(sent!.messages).toEqual([{ role: 'user', content: 'What is in and in this one?', images: expect.any(Array) }]);
    const images = sent!.messages[0]!.images!.map((b64) => Buffer.from(b64, 'base64'));
    expect(images).toHaveLength(2);
    expect(images[0]!.equals(png)).toBe(true);
    expect(images[1]!.equals(jpeg)).toBe(true);
  });

  it('asks /api/show once per model, then trusts its answer', async () => {
    const adapter = createOllamaAdapter();
    await adapterChat(adapter, withImages('gemma3:4b'), ctxFor());
    await adapterChat(adapter, withImages(), ctxFor());
    await adapterChat(adapter, { messages: [{ role: 'user', content: 'no image' }] }, ctxFor());
    expect(shows()).toHaveLength(1);
    expect(fake.chats).toHaveLength(3);
  });

  it('to a named model without vision: invalid_request naming the model, and Ollama is never asked to chat', async () => {
    const registry = registryFor();
    try {
      for (let i = 0; i < 2; i++) {
        const error = await registry.chat('ollama', withImages('qwen3:14b')).catch((e) => e);
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect(error).toMatchObject({
          toolId: 'ollama',
          httpStatus: 400,
          publicDetails: { reason: 'unsupported', feature: 'images', model: 'qwen3:14b' },
        });
        expect(error.message).toBe(
          'The Ollama model "qwen3:14b" cannot take images (its capabilities: completion, tools, thinking); ' +
            'name a vision model, one whose `ollama show` capabilities include vision',
        );
      }
      // One look at the model (the second refusal came from the cache), none at the chat.
      expect(shows().filter((r) => (r.json as { model: string }).model === 'qwen3:14b')).toHaveLength(1);
      expect(fake.chats).toHaveLength(0);
      // The tool is not doubted for the caller's choice of model.
      expect((await registry.tool('ollama')).available).toBe(true);
    } finally {
      await registry.close();
    }
  });

  it('to the default model without vision (adapter alone): refused naming it', async () => {
    fake.options.models = ['qwen3:14b'];
    await expect(adapterChat(createOllamaAdapter(), withImages(), ctxFor())).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('"qwen3:14b" cannot take images'),
    });
    expect(fake.chats).toHaveLength(0);
  });

  it('a /api/show that never answers: the call deadline ends the chat, and the lookup gives up on its own bound', async () => {
    fake.set('/api/show', { kind: 'hang' });
    const adapter = createOllamaAdapter({ probeTimeoutMs: 400 });
    const ctx = createCallContext({ config: { ollamaHost: fake.url }, env: {}, toolId: 'ollama' }, { timeoutMs: 150 }).ctx;
    await expect(adapterChat(adapter, withImages(), ctx)).rejects.toBeInstanceOf(TimeoutError);
    await waitFor(() => shows()[0]?.closedEarly === true, 3000, 'the show request to close');
    expect(fake.chats).toHaveLength(0);
    // A failed lookup is not kept: the next chat asks again.
    fake.set('/api/show', { kind: 'ok' });
    await adapterChat(adapter, withImages(), ctxFor());
    expect(shows()).toHaveLength(2);
  });

  it('to a model Ollama does not have: the model-not-found error, with the installed ones', async () => {
    const error = await adapterChat(createOllamaAdapter(), withImages('llava:13b'), ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe(
      'Ollama has no model "llava:13b" (model \'llava:13b\' not found). Installed models: gemma3:4b, qwen3:14b. Pull it with `ollama pull llava:13b`.',
    );
    expect(fake.chats).toHaveLength(0);
  });
});

describe('the in-test server stays honest', () => {
  it('refuses images Ollama could not decode, and images to a model without an encoder', async () => {
    const post = (body: unknown) =>
      fetch(`${fake.url}/api/chat`, { method: 'POST', body: JSON.stringify(body) }).then(async (r) => [r.status, await r.json()]);
    const msg = (images: unknown) => ({ model: 'gemma3:4b', messages: [{ role: 'user', content: 'x', images }] });
    expect(await post(msg(['data:image/png;base64,iVBORw0KGgo=']))).toEqual([400, { error: 'illegal base64 data at input byte 4' }]);
    expect(await post({ ...msg([png.toString('base64')]), model: 'qwen3:14b' })).toEqual([
      500,
      { error: 'this model is missing data required for image input' },
    ]);
  });
});
