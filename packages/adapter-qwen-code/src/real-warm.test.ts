import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { type ApprovalRequest, type CallContext, type ChatContext, type ChatRequest, type ToolAdapter } from '@toolbridge/core';
import { adapterChat, processesWithEnv, waitFor } from '@toolbridge/test-suite/kit';
import { createQwenCodeAdapter } from './adapter.js';
import { startMockQwenServer, type MockQwenServer } from './testing/mock-openai.js';
import { realQwenHome, type RealQwenHome } from './testing/real.js';

/**
 * The warm transport with the real `qwen` (stream-json input, on the pinned Node 22) against the
 * mock: one process answers a set-up's chats, a fresh conversation each (`/clear`), a session
 * continues in it, approvals are asked through `ctx.approvals` and an interrupt ends the turn.
 */
let mock: MockQwenServer;
let real: RealQwenHome;
let adapter: ToolAdapter;
let cwd: string;

beforeAll(async () => {
  mock = await startMockQwenServer();
  real = await realQwenHome(mock.baseURL);
  adapter = createQwenCodeAdapter();
  cwd = await mkdtemp(path.join(real.home, 'work-'));
});

afterAll(async () => {
  await adapter?.dispose?.();
  await mock?.close();
  await real?.cleanup();
});

const ctxOf = (extra: Partial<ChatContext> = {}): CallContext =>
  ({ config: {}, env: real.env, signal: AbortSignal.timeout(150_000), ...extra }) as CallContext;
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], cwd, ...extra });
const sent = (r: { json?: unknown }) => JSON.stringify((r.json as { messages?: unknown }).messages);
const turnsSince = (n: number) => mock.turns().filter((r) => mock.requests.indexOf(r) >= n);
const qwenProcesses = () => processesWithEnv(`HOME=${real.home}`);

describe('real qwen 0.24.4, warm (stream-json input)', () => {
  it('answers a set-up’s chats in one process, each in a fresh conversation; a session continues in it', async () => {
    mock.fallback = { kind: 'text', chunks: ['Hello ', 'from ', 'mock'] };
    const first = await adapterChat(adapter, ask('FIRST-WARM-4410'), ctxOf());
    expect(first).toMatchObject({ message: { content: 'Hello from mock' }, metadata: { transport: 'warm' } });
    expect(first.usage).toEqual({ input_tokens: 20, cached_input_tokens: 5, output_tokens: 7, total_tokens: 27 });
    const pids = qwenProcesses();
    expect(pids.length).toBeGreaterThan(0);

    const before = mock.requests.length;
    const second = await adapterChat(adapter, ask('SECOND-WARM-4411'), ctxOf());
    expect(second.metadata).toMatchObject({ transport: 'warm' });
    expect(second.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    const turn = sent(turnsSince(before)[0]!);
    expect(turn).toContain('SECOND-WARM-4411');
    expect(turn).not.toContain('FIRST-WARM-4410');
    expect(qwenProcesses()).toEqual(pids);

    const at = mock.requests.length;
    const resume = { nativeSessionId: String(second.metadata.nativeSessionId), fork: false };
    const third = await adapterChat(adapter, ask('THIRD-WARM-4412'), ctxOf(), { resume });
    expect(third.metadata).toMatchObject({ transport: 'warm', nativeSessionId: resume.nativeSessionId });
    expect(sent(turnsSince(at)[0]!)).toContain('SECOND-WARM-4411');
    expect(qwenProcesses()).toEqual(pids);
  }, 300_000);

  it('asks ctx.approvals before a shell command runs: a denial stops it, an approval runs it', async () => {
    const asked: ApprovalRequest[] = [];
    const gate = (allow: boolean) => ({
      ask: async (r: ApprovalRequest) => {
        asked.push(r);
        return allow ? { allow: true } : { allow: false, message: 'not now' };
      },
    });
    const file = path.join(cwd, 'asked.txt');
    const run = { kind: 'call' as const, name: 'run_shell_command', args: { command: `echo hi > ${file}` } };
    mock.queue.push(run, { kind: 'text', chunks: ['Refused.'] });
    const denied = await adapterChat(adapter, ask('run it', { permissions: 'full' }), ctxOf({ approvals: gate(false) }));
    expect(asked).toEqual([expect.objectContaining({ kind: 'command', command: `echo hi > ${file}` })]);
    expect(existsSync(file)).toBe(false);
    expect(denied.metadata).toMatchObject({ transport: 'warm' });
    mock.queue.push(run, { kind: 'text', chunks: ['Ran.'] });
    const allowed = await adapterChat(adapter, ask('run it', { permissions: 'full' }), ctxOf({ approvals: gate(true) }));
    expect(allowed.message.content).toBe('Ran.');
    expect(asked).toHaveLength(2);
    expect(existsSync(file)).toBe(true);
  }, 300_000);

  it('a chat asking for approvals that would run one-shot (a JSON answer) is refused before anything runs', async () => {
    const before = mock.requests.length;
    const gate = { ask: async () => ({ allow: true }) };
    const json = ask('answer in JSON', { permissions: 'full', responseFormat: { type: 'json_schema', schema: { type: 'object' } } });
    const error = await adapterChat(adapter, json, ctxOf({ approvals: gate })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_request', publicDetails: { reason: 'unsupported', feature: 'approvals' } });
    expect(mock.requests.length).toBe(before);
  }, 60_000);

  it('an interrupt ends the turn natively with finishReason "interrupted", the process kept', async () => {
    mock.queue.push({ kind: 'hang' });
    const interrupt = new AbortController();
    const before = mock.requests.length;
    const pending = adapterChat(adapter, ask('wait forever'), ctxOf({ interrupt: interrupt.signal }));
    await waitFor(() => mock.requests.length > before, 60_000, 'the model request');
    const pids = qwenProcesses();
    interrupt.abort();
    const result = await pending;
    expect(result.metadata).toMatchObject({ finishReason: 'interrupted', transport: 'warm' });
    expect(qwenProcesses()).toEqual(expect.arrayContaining(pids));
    mock.fallback = { kind: 'text', chunks: ['Back.'] };
    const next = await adapterChat(adapter, ask('again'), ctxOf());
    expect(next).toMatchObject({ message: { content: 'Back.' }, metadata: { transport: 'warm' } });
  }, 300_000);
});
