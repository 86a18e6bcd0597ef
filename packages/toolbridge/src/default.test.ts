import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkAllToolsHealth, chat, closeDefaultToolbridge, configure, connect, discover, getConfig, ToolNotFoundError } from './index.js';
import { makeFakeMachine, type FakeMachine } from 'toolbridge/testing';

const hello = { messages: [{ role: 'user' as const, content: 'Say hello' }] };
let machine: FakeMachine;
const savedEnv = { ...process.env };

// The top-level functions use one process-wide instance over process.env: point it at the fakes.
beforeAll(async () => {
  machine = await makeFakeMachine();
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, machine.env);
});
afterAll(async () => {
  await closeDefaultToolbridge();
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await machine.cleanup();
});

describe('the default instance (top-level functions)', () => {
  it('discovers, connects, configures and chats', async () => {
    const tools = await discover();
    expect(tools.map((t) => [t.id, t.available])).toEqual([
      ['codex', true],
      ['claude-code', true],
      ['opencode', true],
      ['gemini', true],
      ['copilot', true],
      ['pi', true],
      ['qwen-code', true],
      ['ollama', true],
    ]);
    await expect(connect('nope')).rejects.toBeInstanceOf(ToolNotFoundError);
    expect(getConfig()).toEqual({});
    configure({ ollamaModel: 'qwen3:14b' });
    expect(getConfig()).toEqual({ ollamaModel: 'qwen3:14b' });
    const response = await chat(hello, { providers: ['ollama'], timeoutMs: 20_000 });
    expect(response).toMatchObject({ toolId: 'ollama', model: 'qwen3:14b', fallbackUsed: false });
    expect(machine.ollama.chats.at(-1)!.model).toBe('qwen3:14b');
    const health = await checkAllToolsHealth();
    expect(health.map((h) => h.toolId)).toEqual(['codex', 'claude-code', 'opencode', 'gemini', 'copilot', 'pi', 'qwen-code', 'ollama']);
  });

  it('closeDefaultToolbridge() ends the instance; the next call starts a fresh one', async () => {
    configure({ codexModel: 'gpt-test' });
    await closeDefaultToolbridge();
    expect(getConfig()).toEqual({});
  });
});
