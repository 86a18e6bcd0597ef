import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createRegistry } from '@toolbridge/core/runtime';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';
import { createOllamaAdapter } from './adapter.js';
import { startFakeOllama, type FakeOllama } from './testing/fake-ollama.js';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let fake: FakeOllama;
let registry: ReturnType<typeof createRegistry>;

beforeAll(async () => {
  fake = await startFakeOllama({ models: ['gemma3:4b'] });
  // An agent with native sessions of its own: a session started there moves to Ollama by transcript.
  const agent = scriptedAdapter('scripted-agent', {
    script: () => ({ deltas: ['Noted, ', 'Ada.'], metadata: { nativeSessionId: 'native-1' } }),
    features: { sessions: { resume: true, fork: true }, images: true },
    detectedCapabilities: ['vision'],
  });
  registry = createRegistry({ adapters: [agent, createOllamaAdapter()], env: { OLLAMA_HOST: fake.url } });
});
afterAll(async () => {
  await registry.close();
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  fake.options.reply = (_model, body) => `Answer ${(body.messages as unknown[]).length}`;
});

describe('sessions on Ollama (core keeps the transcript)', () => {
  it('declares no native sessions', () => {
    expect(createOllamaAdapter().features.sessions).toBeUndefined();
  });

  it('a second turn sent with only the new message reaches /api/chat with the first turn and its answer', async () => {
    const first = await registry.chat('ollama', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'My name is Ada.' },
      ],
    });
    expect(first.sessionId).toMatch(/^tbs_/);
    expect(first.metadata).not.toHaveProperty('nativeSessionId');
    const second = await registry.chat('ollama', { sessionId: first.sessionId, messages: [{ role: 'user', content: 'What is my name?' }] });
    expect(second.sessionId).toBe(first.sessionId);
    expect(fake.chats.map((c) => c.messages)).toEqual([
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'My name is Ada.' },
      ],
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'Answer 2' },
        { role: 'user', content: 'What is my name?' },
      ],
    ]);
    expect((await registry.sessions.get(first.sessionId!)).turns).toBe(2);
  });

  it('a fork continues from the first turn and leaves the original untouched', async () => {
    const first = await registry.chat('ollama', { messages: [{ role: 'user', content: 'Pick a colour.' }] });
    const fork = await registry.chat('ollama', {
      sessionId: first.sessionId,
      fork: true,
      messages: [{ role: 'user', content: 'Another?' }],
    });
    expect(fork.sessionId).not.toBe(first.sessionId);
    expect(fake.chats[1]!.messages).toEqual([
      { role: 'user', content: 'Pick a colour.' },
      { role: 'assistant', content: 'Answer 1' },
      { role: 'user', content: 'Another?' },
    ]);
    const original = await registry.sessions.get(first.sessionId!);
    expect(original.turns).toBe(1);
    expect(original.messages.map((m) => m.content)).toEqual(['Pick a colour.', 'Answer 1']);
    expect((await registry.sessions.get(fork.sessionId!)).forkedFrom).toBe(first.sessionId);
  });

  it('takes over a session another tool started: Ollama gets the transcript, images included, and the session moves to it', async () => {
    const started = await registry.chat('scripted-agent', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'My name is Ada; this is my cat.' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
          ],
        },
      ],
    });
    expect(started.message.content).toBe('Noted, Ada.');
    const next = await registry.chat('ollama', { sessionId: started.sessionId, messages: [{ role: 'user', content: 'What is my name?' }] });
    expect(next.sessionId).toBe(started.sessionId);
    expect(fake.chats).toHaveLength(1);
    expect(fake.chats[0]!.messages).toEqual([
      { role: 'user', content: 'My name is Ada; this is my cat.', images: [PNG] },
      { role: 'assistant', content: 'Noted, Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    const detail = await registry.sessions.get(started.sessionId!);
    expect(detail.toolId).toBe('ollama');
    expect(detail.toolChanges).toEqual([{ from: 'scripted-agent', to: 'ollama', at: expect.any(String) }]);
    expect(detail.messages.map((m) => [m.role, m.toolId])).toEqual([
      ['user', undefined],
      ['assistant', 'scripted-agent'],
      ['user', undefined],
      ['assistant', 'ollama'],
    ]);

    // The third turn stays on Ollama, with the whole conversation.
    await registry.chat('ollama', { sessionId: started.sessionId, messages: [{ role: 'user', content: 'Thanks.' }] });
    expect(fake.chats[1]!.messages.map((m) => m.content)).toEqual([
      'My name is Ada; this is my cat.',
      'Noted, Ada.',
      'What is my name?',
      'Answer 3',
      'Thanks.',
    ]);
  });
});
