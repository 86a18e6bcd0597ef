import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ApprovalRequest, type CallContext, type ChatRequest, type StreamEvent, type ToolAdapter } from '@toolbridge/core';
import { collectStream, createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import {
  adapterStream,
  cliCacheDir,
  makeTempDir,
  pathWith,
  processesWithEnv,
  REAL_CLIS,
  realCliBinDir,
  waitFor,
} from '@toolbridge/test-suite/kit';
import { createCopilotCliAdapter } from './adapter.js';
import { API_ERRORS, HELLO, startMockOpenAIServer, type MockOpenAIServer } from './testing/mock-openai-server.js';

/**
 * The real, pinned `copilot` in ACP mode (`copilot --acp --stdio`, the warm transport) driven
 * through the adapter, in bring-your-own-model mode against an OpenAI-style mock on 127.0.0.1.
 */

let mock: MockOpenAIServer;
let registry: ToolRegistry;
let adapter: ToolAdapter;
let home: string;
let env: NodeJS.ProcessEnv;
let cleanupHome: () => Promise<void>;

beforeAll(async () => {
  mock = await startMockOpenAIServer();
  const tmp = await makeTempDir('toolbridge-copilot-warm-');
  cleanupHome = tmp.cleanup;
  home = tmp.dir;
  env = {
    PATH: pathWith(realCliBinDir('copilot')),
    HOME: home,
    // Copilot unpacks its package (~235 MB) on first run per cache directory: one for all test runs.
    COPILOT_PKG_CACHE_HOME: path.join(cliCacheDir(), `copilot-pkg-cache@${REAL_CLIS.copilot.version}`),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    COPILOT_PROVIDER_BASE_URL: mock.baseURL,
    COPILOT_OFFLINE: 'true',
  };
  // As after Copilot's first launch (it writes this file once; a new one restarts the warm process, as a login would).
  await mkdir(path.join(home, '.copilot'));
  await writeFile(path.join(home, '.copilot', 'config.json'), '{ "firstLaunchAt": "2026-01-01T00:00:00.000Z" }\n');
  adapter = createCopilotCliAdapter();
  registry = createRegistry({ adapters: [adapter], env });
  registry.config.replace({ copilotModel: 'mock-model' });
});

afterAll(async () => {
  await registry?.close();
  await mock?.close();
  await cleanupHome?.();
});

/** Live copilot processes started with this test's HOME. */
const copilotPids = () => processesWithEnv(`HOME=${home}`);
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], ...extra });
const sent = (r: { body: any }) => JSON.stringify(r.body.messages);
const newModelRequests = (before: number) => mock.chatRequests().slice(before);
const warmLoad = async () => (await registry.health('copilot', { refresh: true })).load.warm;
/** A call context for driving the adapter directly (approvals and interrupts are not on main's registry yet). */
const direct = (extra: Partial<CallContext> & Record<string, unknown> = {}): CallContext => ({
  config: { copilotModel: 'mock-model' },
  env,
  signal: AbortSignal.timeout(120_000),
  ...extra,
});

describe('real copilot 1.0.102 over ACP (warm) against an OpenAI-style mock', () => {
  it('two chats share one warm process and nothing else: no history crosses', async () => {
    mock.fallback = { kind: 'text', chunks: ['Noted.'] };
    const before = mock.chatRequests().length;
    const first = await registry.chat('copilot', ask('remember WARM-SECRET-3141'), { timeoutMs: 90_000 });
    expect(first.metadata).toMatchObject({ transport: 'warm', nativeSessionId: expect.any(String), permissions: { applied: 'read-only' } });
    expect(first.usage).toMatchObject({ input_tokens: 20, output_tokens: 7, cached_input_tokens: 5 });
    const pids = copilotPids();
    expect(pids.length).toBeGreaterThan(0);
    mock.fallback = HELLO;
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('copilot', ask('say hello'), { timeoutMs: 90_000 })) events.push(e);
    expect(events.flatMap((e) => (e.type === 'delta' ? [e.text] : []))).toEqual(['Hello ', 'from ', 'mock']);
    const second = events.at(-1);
    expect(second?.type === 'result' && second.result.metadata).toMatchObject({ transport: 'warm' });
    expect(second?.type === 'result' && second.result.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    const requests = newModelRequests(before);
    expect(requests).toHaveLength(2);
    expect(sent(requests[0]!)).toContain('WARM-SECRET-3141');
    expect(sent(requests[1]!)).not.toContain('WARM-SECRET-3141');
    // The same process answered both.
    expect(copilotPids()).toEqual(pids);
    expect(await warmLoad()).toMatchObject({ processes: 1, busy: 0, rssBytes: expect.any(Number) });
  }, 240_000);

  it('continues a session in the process that holds it: the earlier turn reaches the model', async () => {
    mock.fallback = { kind: 'text', chunks: ['The number is 42.'] };
    const first = await registry.chat('copilot', ask('remember FIRST-TURN-2718'), { timeoutMs: 90_000 });
    mock.fallback = { kind: 'text', chunks: ['Still 42.'] };
    const before = mock.chatRequests().length;
    const second = await registry.chat('copilot', ask('what was it?', { sessionId: first.sessionId }), { timeoutMs: 90_000 });
    expect(second.metadata).toMatchObject({ transport: 'warm', nativeSessionId: first.metadata.nativeSessionId });
    const resumed = sent(newModelRequests(before)[0]!);
    expect(resumed).toContain('FIRST-TURN-2718');
    expect(resumed).toContain('The number is 42.');
  }, 240_000);

  it('asks before a write at workspace-write: allowed writes, denied does not', async () => {
    const cwd = await mkdtemp(path.join(home, 'work-'));
    const asked: ApprovalRequest[] = [];
    const writeCall = (name: string) => ({
      kind: 'call' as const,
      calls: [{ name: 'create', args: { path: path.join(cwd, name), file_text: 'written\n' } }],
    });
    const run = async (name: string, allow: boolean) => {
      mock.queue.push(writeCall(name), { kind: 'text', chunks: ['Done.'] });
      const approvals = { ask: async (r: ApprovalRequest) => (asked.push(r), { allow, message: allow ? undefined : 'not today' }) };
      const events: StreamEvent[] = [];
      for await (const e of adapterStream(adapter, ask('write it', { cwd, permissions: 'workspace-write' }), direct({ approvals })))
        events.push(e);
      const result = events.at(-1)!;
      if (result.type !== 'result') throw new Error('no result');
      return { ...result.result, activities: events.flatMap((e) => (e.type === 'activity' ? [e.activity] : [])) };
    };
    const allowed = await run('yes.txt', true);
    expect(allowed.metadata.transport).toBe('warm');
    expect(existsSync(path.join(cwd, 'yes.txt'))).toBe(true);
    expect(asked[0]).toMatchObject({ kind: 'file_change', changes: [{ path: path.join(cwd, 'yes.txt') }] });
    const denied = await run('no.txt', false);
    expect(existsSync(path.join(cwd, 'no.txt'))).toBe(false);
    expect(asked).toHaveLength(2);
    // Copilot ends its turn at a refusal: the transport tells it why in a next prompt, and it answers.
    expect(denied.message.content).toBe('Done.');
    expect(sent(mock.chatRequests().at(-1)!)).toContain('not today');
    expect(denied.activities.at(-1)).toMatchObject({ kind: 'file_change', status: 'failed' });
    expect(allowed.activities.at(-1)).toMatchObject({ kind: 'file_change', status: 'completed' });
  }, 240_000);

  it('read-only refuses a write without asking anyone', async () => {
    const cwd = await mkdtemp(path.join(home, 'ro-'));
    const asked: ApprovalRequest[] = [];
    mock.queue.push(
      { kind: 'call', calls: [{ name: 'create', args: { path: path.join(cwd, 'x.txt'), file_text: 'x' } }] },
      { kind: 'text', chunks: ['Refused.'] },
    );
    const approvals = { ask: async (r: ApprovalRequest) => (asked.push(r), { allow: true }) };
    const result = await collectStream(adapterStream(adapter, ask('write', { cwd }), direct({ approvals })), adapter.name, adapter.id);
    expect(result.metadata.transport).toBe('warm');
    expect(asked).toEqual([]);
    expect(existsSync(path.join(cwd, 'x.txt'))).toBe(false);
  }, 240_000);

  it('an interrupt cancels the turn natively and ends with finishReason "interrupted"; the process stays', async () => {
    mock.queue.push({ kind: 'hang' });
    const interrupt = new AbortController();
    const before = mock.chatRequests().length;
    const pending = collectStream(
      adapterStream(adapter, ask('take your time'), direct({ interrupt: interrupt.signal })),
      adapter.name,
      adapter.id,
    );
    await waitFor(() => mock.chatRequests().length > before, 60_000, 'the model request');
    const pids = copilotPids();
    interrupt.abort();
    const result = await pending;
    expect(result.metadata).toMatchObject({ transport: 'warm', finishReason: 'interrupted' });
    mock.fallback = HELLO;
    const next = await registry.chat('copilot', ask('again'), { timeoutMs: 90_000 });
    expect(next.message.content).toBe('Hello from mock');
    expect(copilotPids()).toEqual(pids);
  }, 240_000);

  it('a process that dies before the turn said anything is replaced, and the chat answers', async () => {
    mock.queue.push({ kind: 'hang' });
    mock.fallback = HELLO;
    const before = mock.chatRequests().length;
    const pending = registry.chat('copilot', ask('crash me'), { timeoutMs: 120_000 });
    await waitFor(() => mock.chatRequests().length > before, 60_000, 'the model request');
    const old = copilotPids();
    for (const pid of old) process.kill(pid, 'SIGKILL');
    const result = await pending;
    expect(result.message.content).toBe('Hello from mock');
    expect(result.metadata.transport).toBe('warm');
    expect(copilotPids().some((p) => old.includes(p))).toBe(false);
  }, 240_000);

  it('warmIdleMs shuts the process down and gives its memory back; its sessions continue afterwards', async () => {
    registry.config.replace({ copilotModel: 'mock-model', warmIdleMs: 500 });
    mock.fallback = { kind: 'text', chunks: ['Noted.'] };
    const first = await registry.chat('copilot', ask('remember IDLE-TURN-1618'), { timeoutMs: 90_000 });
    await waitFor(() => copilotPids().length === 0, 20_000, 'the idle copilot to exit');
    expect(await warmLoad()).toMatchObject({ processes: 0, rssBytes: 0 });
    const before = mock.chatRequests().length;
    const second = await registry.chat('copilot', ask('what was it?', { sessionId: first.sessionId }), { timeoutMs: 90_000 });
    expect(second.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    expect(sent(newModelRequests(before)[0]!)).toContain('IDLE-TURN-1618');
  }, 240_000);

  it('a provider 401 is a ToolAuthError (Copilot retries it: the chat runs once more over spawn, which ends at the first retry)', async () => {
    mock.fallback = { kind: 'error', status: 401, body: API_ERRORS[401] };
    const e = await registry.chat('copilot', ask('hi'), { timeoutMs: 90_000 }).catch((x) => x);
    expect(e).toMatchObject({ code: 'tool_auth_required', toolId: 'copilot' });
    mock.fallback = HELLO;
  }, 240_000);
});
