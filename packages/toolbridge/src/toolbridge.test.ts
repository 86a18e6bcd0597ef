import { describe, expect, it } from '@jest/globals';
import { InvalidRequestError, ToolNotFoundError } from './index.js';
import { useToolbridgeFixture } from './testing/fixture.js';

const hello = { messages: [{ role: 'user' as const, content: 'Say hello (secret prompt 42)' }] };
const { setup, ollama } = useToolbridgeFixture();

describe('toolbridge with the default adapters, end to end', () => {
  it('discovers all seven tools with their versions and models', async () => {
    const { tb } = await setup();
    const tools = await tb.discover();
    expect(tools.map((t) => t.id)).toEqual(['codex', 'claude-code', 'opencode', 'gemini', 'copilot', 'pi', 'qwen-code', 'ollama']);
    for (const t of tools) expect(t).toMatchObject({ available: true });
    const byId = Object.fromEntries(tools.map((t) => [t.id, t]));
    expect(byId.codex!.version).toContain('0.169.0');
    expect(byId['claude-code']!.version).toContain('2.1.330');
    expect(byId.opencode!.version).toContain('1.18.33');
    expect(byId.opencode!.models).toContain('opencode/big-pickle');
    expect(byId.gemini!.version).toBe('0.61.0');
    expect(byId.gemini!.capabilities).toContain('vision');
    expect(byId.copilot!.version).toBe('1.0.102');
    expect(byId.pi!.version).toBe('0.73.1');
    expect(byId.pi!.models).toEqual(['mock/mock-model']);
    expect(byId['qwen-code']!.version).toBe('0.24.4');
    expect(byId.ollama!.version).toBe('0.9.0');
    expect(byId.ollama!.models).toEqual(expect.arrayContaining(['llama3.2:1b', 'qwen3:14b']));
    expect(byId.ollama!.type).toBe('runtime');
    expect(byId.codex!.type).toBe('agent');
  });

  it.each([
    ['codex', 'Hello from mock'],
    ['claude-code', 'Hello from mock'],
    ['opencode', 'Hello from mock'],
    ['gemini', 'Hello from mock'],
    ['copilot', 'Hello from mock'],
    ['pi', 'Hello from mock'],
    ['qwen-code', 'Hello from mock'],
    ['ollama', 'Hello from ollama'],
  ])('connects to %s and chats: { message, usage, metadata }', async (toolId, text) => {
    const { tb } = await setup();
    const tool = await tb.connect(toolId);
    const result = await tool.chat(hello, { timeoutMs: 20_000 });
    expect(result.message).toEqual({ role: 'assistant', content: text });
    expect(Object.keys(result.usage).length).toBeGreaterThan(0);
    for (const v of Object.values(result.usage)) expect(Number.isInteger(v)).toBe(true);
    expect(result.metadata).toMatchObject({ toolId });
    expect(typeof (await tool.health()).latencyMs).toBe('number');
  });

  it('gives checkAuth/startAuth only to tools with a login', async () => {
    const { tb } = await setup();
    const codex = await tb.connect('codex');
    const ollamaTool = await tb.connect('ollama');
    expect(typeof codex.checkAuth).toBe('function');
    expect(typeof codex.startAuth).toBe('function');
    expect(await codex.checkAuth!()).toMatchObject({ authenticated: true });
    expect('checkAuth' in ollamaTool).toBe(false);
    expect('startAuth' in ollamaTool).toBe(false);
    await expect(tb.startAuth('ollama')).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('sends the prompt on stdin, never in argv', async () => {
    const { tb, clis } = await setup();
    await tb.chatWith('codex', hello, { timeoutMs: 20_000 });
    const run = (await clis.runs('codex')).find((r) => r.argv[0] === 'exec')!;
    expect(run.stdin.length).toBeGreaterThan(0);
    expect(run.argv.join(' ')).not.toContain('secret prompt');
  });

  it('streams a tool: events end with one result', async () => {
    const { tb } = await setup();
    const tool = await tb.connect('opencode');
    const events = [];
    for await (const e of tool.stream(hello, { timeoutMs: 20_000 })) events.push(e);
    const last = events.at(-1)!;
    expect(last.type).toBe('result');
    if (last.type === 'result') expect(last.result.message.content).toBe('Hello from mock');
    const deltas = events.flatMap((e) => (e.type === 'delta' ? [e.text] : []));
    expect(deltas.join('')).toBe('Hello from mock');
  });

  it('rejects unknown tools and invalid input with typed errors', async () => {
    const { tb } = await setup();
    const notFound = await tb.connect('nope').catch((e) => e);
    expect(notFound).toBeInstanceOf(ToolNotFoundError);
    expect(notFound).toMatchObject({ code: 'tool_not_found', httpStatus: 404 });
    expect(notFound.message).toContain('nope');
    await expect(tb.chat({ messages: [] }, { providers: ['codex'] })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(tb.chat(hello, { providers: [] })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(tb.chatWith('nope', hello)).rejects.toBeInstanceOf(ToolNotFoundError);
  });

  it('configure() replaces the config, validates it, and applies it to the next chat', async () => {
    const { tb, clis } = await setup();
    expect(tb.getConfig()).toEqual({ ollamaModel: 'llama3.2:1b' });
    expect(tb.configure({ ollamaModel: 'qwen3:14b', codexModel: 'gpt-test' })).toEqual({
      ollamaModel: 'qwen3:14b',
      codexModel: 'gpt-test',
    });
    expect(tb.getConfig()).toEqual({ ollamaModel: 'qwen3:14b', codexModel: 'gpt-test' });

    const viaOllama = await tb.chat(hello, { providers: ['ollama'] });
    expect(viaOllama.model).toBe('qwen3:14b');
    expect(ollama().chats.at(-1)!.model).toBe('qwen3:14b');

    await tb.chatWith('codex', hello);
    const exec = (await clis.runs('codex')).filter((r) => r.argv[0] === 'exec').at(-1)!;
    expect(exec.argv).toEqual(expect.arrayContaining(['-m', 'gpt-test']));

    expect(() => tb.configure({ codexModel: 5 })).toThrow(InvalidRequestError);
    expect(() => tb.configure({ notAKey: 'x' })).toThrow(InvalidRequestError);
    expect(tb.getConfig()).toEqual({ ollamaModel: 'qwen3:14b', codexModel: 'gpt-test' });
  });

  it('checkAllToolsHealth() reports every tool with its auth state', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('claude', 'logged_out');
    const records = await tb.checkAllToolsHealth();
    const byId = Object.fromEntries(records.map((r) => [r.toolId, r]));
    expect(Object.keys(byId).sort()).toEqual(['claude-code', 'codex', 'copilot', 'gemini', 'ollama', 'opencode', 'pi', 'qwen-code']);
    expect(byId.codex).toMatchObject({
      status: 'healthy',
      available: true,
      authSupported: true,
      authenticated: true,
      authStatus: 'authenticated',
    });
    expect(byId['claude-code']).toMatchObject({ available: true, authenticated: false, authStatus: 'unauthenticated' });
    expect(byId.ollama).toMatchObject({ status: 'healthy', authSupported: false, authStatus: 'not_required' });
    // Read offline from the files their logins leave (the fake machine's HOME has them).
    expect(byId.gemini).toMatchObject({ status: 'healthy', authenticated: true, authStatus: 'authenticated' });
    expect(byId.copilot).toMatchObject({ status: 'healthy', authenticated: true, authStatus: 'authenticated' });
    expect(byId.gemini!.usageLimits).toMatchObject({ status: 'unavailable' });
    for (const r of records) expect(Date.parse(r.checkedAt)).not.toBeNaN();
  });
});
