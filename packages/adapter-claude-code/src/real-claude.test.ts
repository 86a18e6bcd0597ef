import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { RateLimitError, TimeoutError, ToolAuthError, type StreamEvent } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, processesWithEnv, waitFor } from '@toolbridge/test-suite/kit';
import { createClaudeCodeAdapter } from './index.js';
import { startMockAnthropic, type MockAnthropicServer } from './testing/mock-anthropic.js';
import { realClaudeEnv } from './testing/real.js';

/**
 * The real, pinned `claude` against a mock Anthropic Messages API on
 * 127.0.0.1, in a throwaway HOME: no network, no real credentials.
 */
describe('real claude 2.1.330 against a mock Anthropic API', () => {
  let server: MockAnthropicServer;
  let home: { dir: string; cleanup(): Promise<void> };
  const registries: ToolRegistry[] = [];
  const hello = {
    messages: [
      { role: 'system' as const, content: 'Answer tersely.' },
      { role: 'user' as const, content: 'Say hello' },
    ],
  };

  beforeAll(async () => {
    server = await startMockAnthropic();
    home = await makeTempDir('tb-claude-real-');
  });
  afterAll(async () => {
    for (const r of registries) await r.close();
    await server.close();
    await home.cleanup();
  });

  /** Environment for one registry: its own HOME; `auth` picks the credential the CLI sees. */
  const registryWith = (auth: 'api_key' | 'oauth' | 'none', name: string, warm = true) => {
    const dir = path.join(home.dir, name);
    const env = realClaudeEnv(server.url, dir, auth);
    const registry = createRegistry({ adapters: [createClaudeCodeAdapter({ warm })], env });
    registries.push(registry);
    return { registry, env, dir };
  };
  const messageRequests = () => server.messageRequests();

  it('chats: real answer text, integer usage, no tools offered, prompt in the request', async () => {
    server.behavior = { mode: 'ok', text: 'Hello from mock' };
    const { registry } = registryWith('api_key', 'chat');
    const tool = await registry.connect('claude-code');
    expect(tool.version).toBe('2.1.330');
    const before = messageRequests().length;
    const result = await tool.chat(hello, { timeoutMs: 60_000 });
    expect(result.message).toEqual({ role: 'assistant', content: 'Hello from mock' });
    expect(result.usage).toMatchObject({ input_tokens: 21, output_tokens: 5 });
    for (const v of Object.values(result.usage)) expect(Number.isInteger(v)).toBe(true);
    expect(result.model).toEqual(expect.any(String));
    expect(result.metadata).toMatchObject({ numTurns: 1, nativeSessionId: expect.any(String) });
    expect(result.sessionId).toMatch(/^tbs_/);

    const body = messageRequests()[before]!.body as { tools: unknown[]; system: Array<{ text: string }>; messages: unknown[] };
    expect(body.tools).toEqual([]);
    expect(body.system.map((s) => s.text)).toContain('Answer tersely.');
    expect(JSON.stringify(body.messages)).toContain('Say hello');
    // The session is kept where Claude Code keeps every session, so it can be resumed.
    const projects = path.join(home.dir, 'chat', '.claude', 'projects');
    const files = (await Promise.all((await readdir(projects)).map((p) => readdir(path.join(projects, p))))).flat();
    expect(files).toContain(`${result.metadata.nativeSessionId as string}.jsonl`);
  }, 120_000);

  it('streams the answer as deltas', async () => {
    server.behavior = { mode: 'ok', text: 'Streaming works fine' };
    const { registry } = registryWith('api_key', 'stream');
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('claude-code', hello, { timeoutMs: 60_000 })) events.push(e);
    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.map((e) => (e as { text: string }).text).join('')).toBe('Streaming works fine');
    expect(events.at(-1)).toMatchObject({ type: 'result', result: { message: { content: 'Streaming works fine' } } });
  }, 120_000);

  it('read-only tool access offers only the read tools', async () => {
    server.behavior = { mode: 'ok' };
    const { registry } = registryWith('api_key', 'readonly');
    registry.config.replace({ claudeCodeToolAccess: 'read-only' });
    const before = messageRequests().length;
    await registry.chat('claude-code', hello, { timeoutMs: 60_000 });
    const tools = (messageRequests()[before]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['Read', 'Glob', 'Grep']));
    for (const forbidden of ['Bash', 'Edit', 'Write', 'WebFetch']) expect(tools).not.toContain(forbidden);
  }, 120_000);

  it('mock 401 → ToolAuthError; 429 → RateLimitError, each within seconds', async () => {
    const { registry } = registryWith('api_key', 'errors');
    server.behavior = { mode: 'error', status: 401 };
    await expect(registry.chat('claude-code', hello, { timeoutMs: 60_000 })).rejects.toBeInstanceOf(ToolAuthError);
    server.behavior = { mode: 'error', status: 429 };
    const e = await registry.chat('claude-code', hello, { timeoutMs: 60_000 }).catch((err) => err);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ retryable: true, toolId: 'claude-code' });
  }, 120_000);

  it('unified rate-limit headers → health reports the windows afterwards', async () => {
    const reset5h = Math.floor(Date.now() / 1000) + 3 * 3600;
    const reset7d = Math.floor(Date.now() / 1000) + 5 * 86400;
    server.behavior = {
      mode: 'ok',
      unified: { fiveHour: { utilization: 0.42, reset: reset5h }, sevenDay: { utilization: 0.07, reset: reset7d } },
    };
    const { registry, env } = registryWith('oauth', 'limits');
    expect((await registry.health('claude-code')).usageLimits).toMatchObject({ status: 'unavailable' });
    await registry.chat('claude-code', hello, { timeoutMs: 60_000 });
    const health = await registry.health('claude-code');
    expect(health.usageLimits).toMatchObject({
      status: 'available',
      source: 'local_session',
      windows: {
        five_hour: { usedPercentage: 42, remainingPercentage: 58, resetsAt: new Date(reset5h * 1000).toISOString() },
        seven_day: { usedPercentage: 7, remainingPercentage: 93, resetsAt: new Date(reset7d * 1000).toISOString() },
      },
    });
    expect(health.authMethod).toBe('oauth_token');
    const file = path.join(env.XDG_STATE_HOME!, 'toolbridge', 'claude-code-usage.json');
    expect(JSON.parse(await readFile(file, 'utf8')).windows.five_hour.usedPercentage).toBe(42);
  }, 120_000);

  it('logged out: auth status parses, health says unauthenticated', async () => {
    const { registry } = registryWith('none', 'loggedout');
    const tool = await registry.connect('claude-code');
    expect(await tool.checkAuth!({ timeoutMs: 30_000 })).toMatchObject({ authenticated: false });
    expect(await registry.health('claude-code', { timeoutMs: 30_000 })).toMatchObject({
      authenticated: false,
      authStatus: 'unauthenticated',
    });
  }, 120_000);

  it('startAuth: the real `claude auth login` prints its URL; dispose ends the flow', async () => {
    const { registry, dir } = registryWith('none', 'login');
    const tool = await registry.connect('claude-code');
    const started = await tool.startAuth!({ timeoutMs: 30_000 });
    expect(started).toMatchObject({
      status: 'started',
      command: 'claude auth login',
      url: expect.stringMatching(/^https:\/\/claude\.ai\/oauth\/authorize\?/),
    });
    expect((await tool.startAuth!()).status).toBe('in_progress');
    expect(processesWithEnv(`HOME=${dir}`).length).toBeGreaterThan(0);
    await registry.close();
    await waitFor(async () => processesWithEnv(`HOME=${dir}`).length === 0, 10_000, 'the login flow to exit');
  }, 120_000);

  // The spawn path; the warm path's timeouts are in real-warm.test.ts (its process stays, idle).
  it('a server that never answers → TimeoutError, and no claude process is left', async () => {
    server.behavior = { mode: 'hang' };
    const { registry, dir } = registryWith('api_key', 'hang', false);
    const pending = registry.chat('claude-code', hello, { timeoutMs: 4000 }).catch((e) => e);
    // The check below must be able to see claude processes at all.
    await waitFor(async () => processesWithEnv(`HOME=${dir}`).length > 0, 4000, 'claude to start');
    const error = await pending;
    expect(error).toBeInstanceOf(TimeoutError);
    await waitFor(async () => processesWithEnv(`HOME=${dir}`).length === 0, 10_000, 'claude processes to exit');
  }, 120_000);
});
