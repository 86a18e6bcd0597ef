import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, type ResponseFormat, type StreamEvent } from '@toolbridge/core';
import { createRegistry, jsonInstruction } from '@toolbridge/core/runtime';
import { createOllamaAdapter } from './adapter.js';
import { startFakeOllama, type FakeOllama } from './testing/fake-ollama.js';

let fake: FakeOllama;
let registry: ReturnType<typeof createRegistry>;

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, capital: { type: 'string' } },
  required: ['name', 'capital'],
  additionalProperties: false,
};
const asked = {
  messages: [{ role: 'user' as const, content: 'Tell me about Canada.' }],
  responseFormat: { type: 'json_schema' as const, schema },
};

beforeAll(async () => {
  fake = await startFakeOllama({ models: ['qwen3:14b'] });
  registry = createRegistry({ adapters: [createOllamaAdapter()], env: { OLLAMA_HOST: fake.url } });
});
afterAll(async () => {
  await registry.close();
  await fake.close();
});
beforeEach(() => fake.reset());

describe("structured output through Ollama's format", () => {
  it('declares it native', () => {
    expect(createOllamaAdapter().features.structuredOutput).toBe('native');
  });

  it('sends the schema as `format`, grounds the prompt with it, and returns the conforming answer as object', async () => {
    fake.options.reply = '{"name": "Canada", "capital": "Ottawa"}';
    const result = await registry.chat('ollama', asked);
    expect(fake.chats).toHaveLength(1);
    expect(fake.chats[0]!.format).toEqual(schema);
    expect(fake.chats[0]!.messages).toEqual([
      { role: 'system', content: jsonInstruction({ type: 'json_schema', schema }) },
      { role: 'user', content: 'Tell me about Canada.' },
    ]);
    expect(result.object).toEqual({ name: 'Canada', capital: 'Ottawa' });
    expect(JSON.parse(result.message.content)).toEqual({ name: 'Canada', capital: 'Ottawa' });
    expect(result.metadata.repairTurns).toBeUndefined();
  });

  it('sends "json" for a JSON answer without a schema, the instruction appended to the caller\'s system message', async () => {
    fake.options.reply = '[1, 2, 3]';
    const messages = [{ role: 'system' as const, content: 'Be terse.' }, ...asked.messages];
    const result = await registry.chat('ollama', { messages, responseFormat: { type: 'json' } });
    expect(fake.chats[0]!.format).toBe('json');
    expect(fake.chats[0]!.messages).toEqual([
      { role: 'system', content: `Be terse.\n\n${jsonInstruction({ type: 'json' })}` },
      { role: 'user', content: 'Tell me about Canada.' },
    ]);
    expect(result.object).toEqual([1, 2, 3]);
  });

  it('sends no format when none is asked for', async () => {
    fake.options.reply = 'Canada is a country.';
    await registry.chat('ollama', { messages: asked.messages });
    expect(fake.chats[0]).not.toHaveProperty('format');
    expect(fake.chats[0]!.messages).toEqual([{ role: 'user', content: 'Tell me about Canada.' }]);
  });

  it('a non-conforming answer gets exactly one repair turn (the transcript resent with format), then a 502 schema_mismatch', async () => {
    fake.options.reply = '{"name": "Canada", "capital": 42}';
    const error = await registry.chat('ollama', asked).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ httpStatus: 502, toolId: 'ollama', publicDetails: { reason: 'schema_mismatch' } });
    expect(error.publicDetails.errors).toEqual([{ path: '/capital', message: 'must be string' }]);
    // Never the answer itself in the error.
    expect(JSON.stringify({ message: error.message, details: error.publicDetails })).not.toContain('42');

    expect(fake.chats).toHaveLength(2);
    const [first, repair] = fake.chats;
    expect(repair!.format).toEqual(schema);
    // What the model saw, its answer, and the repair prompt.
    expect(repair!.messages.slice(0, 3)).toEqual([...first!.messages, { role: 'assistant', content: '{"name": "Canada", "capital": 42}' }]);
    expect(repair!.messages).toHaveLength(4);
    expect(repair!.messages[3]!.role).toBe('user');
    expect(repair!.messages[3]!.content).toMatch(/^Your previous answer did not match the required format:\n- \/capital: must be string/);
  });

  it('a repaired answer comes back as object, usage of both calls added, streamed as one delta', async () => {
    const answers = ['{"name": "Canada"}', '{"name": "Canada", "capital": "Ottawa"}'];
    fake.options.reply = () => answers[fake.chats.length - 1]!;
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('ollama', asked)) events.push(e);
    expect(fake.chats).toHaveLength(2);
    expect(events.filter((e) => e.type === 'delta')).toEqual([{ type: 'delta', text: '{"name": "Canada", "capital": "Ottawa"}' }]);
    const last = events.at(-1)!;
    if (last.type !== 'result') throw new Error('no result');
    expect(last.result.object).toEqual({ name: 'Canada', capital: 'Ottawa' });
    expect(last.result.metadata.repairTurns).toBe(1);
    expect(last.result.usage.output_tokens).toBe(2 + 4);
  });

  it('an invalid schema is refused before Ollama is asked', async () => {
    const bad: ResponseFormat = { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'nonsense' } } } };
    await expect(registry.chat('ollama', { ...asked, responseFormat: bad })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(fake.chats).toHaveLength(0);
  });
});
