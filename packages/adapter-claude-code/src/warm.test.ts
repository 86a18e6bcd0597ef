import { describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError, ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { adapterChat, makeTempDir, pidAlive, waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { capture, flagOf, readPids, readRecords, stdinLines, type RecordedRun } from './testing/fake-claude.js';
import { fakeSetups } from './testing/setup.js';

const { setup } = fakeSetups();
const ok = { chat: { stdoutFile: capture('claude-partial-stream.out') } };
const hello = { messages: [{ role: 'user' as const, content: 'Say hello' }] };
/** The user lines a warm process was sent so far (its last record holds all its input). */
const userLines = (run: RecordedRun) => stdinLines(run).filter((l) => l.type === 'user');
const SESSION = 'b7aeec69-bb31-46fa-8c53-9d3f42f7b031'; // the session id in claude-partial-stream.out

describe('warm transport (fake claude speaking stream-json)', () => {
  it('chats answer from one long-lived process; each stateless chat gets a fresh conversation (/clear)', async () => {
    const s = await setup(ok, { warm: true });
    const first = await s.registry.chat('claude-code', hello);
    const second = await s.registry.chat('claude-code', { messages: [{ role: 'user', content: 'Again' }] });
    expect([first.metadata.transport, second.metadata.transport]).toEqual(['warm', 'warm']);
    expect(second.message.content).toBe('Hello from mock');
    const runs = await readRecords(s.recordFile);
    expect(new Set(runs.map((r) => r.pid)).size).toBe(1);
    // initialize first, then the first chat; /clear before the second.
    expect(stdinLines(runs[1]!).map((l) => (l.type === 'user' ? l.message.content : l.request.subtype))).toEqual([
      'initialize',
      [{ type: 'text', text: 'Say hello' }],
      '/clear',
      [{ type: 'text', text: 'Again' }],
    ]);
    expect(runs[0]!.argv.slice(0, 3)).toEqual(['-p', '--input-format', 'stream-json']);
    // The process is still there, waiting for the next chat.
    expect(pidAlive(runs[0]!.pid)).toBe(true);
    expect(s.registry.load('claude-code')).toMatchObject({ transport: 'warm', warm: { processes: 1, busy: 0, idleTimeoutMs: 300_000 } });
  });

  it('a session continues in the process that holds it, with only the new message and no /clear', async () => {
    const s = await setup(ok, { warm: true });
    const first = await s.registry.chat('claude-code', hello);
    expect(first.metadata.nativeSessionId).toBe(SESSION);
    const next = await s.registry.chat('claude-code', { messages: [{ role: 'user', content: 'And then?' }], sessionId: first.sessionId });
    expect(next.metadata.transport).toBe('warm');
    const runs = await readRecords(s.recordFile);
    expect(runs.map((r) => r.pid)).toEqual([runs[0]!.pid, runs[0]!.pid]);
    expect(userLines(runs[1]!).map((l) => l.message.content)).toEqual([
      [{ type: 'text', text: 'Say hello' }],
      [{ type: 'text', text: 'And then?' }],
    ]);
    expect(runs[1]!.argv).not.toContain('--resume');
  });

  it('a session whose process is gone continues in a new one started with --resume; a fork takes the spawn path', async () => {
    const s = await setup(ok, { warm: true });
    const ctx = { config: {}, env: s.env, signal: new AbortController().signal };
    const resumed = await adapterChat(s.adapter, hello, ctx, { resume: { nativeSessionId: SESSION, fork: false } });
    expect(resumed.metadata.transport).toBe('warm');
    const forked = await adapterChat(s.adapter, hello, ctx, { resume: { nativeSessionId: SESSION, fork: true } });
    expect(forked.metadata.transport).toBe('spawn');
    const [warmRun, spawnRun] = await readRecords(s.recordFile);
    expect(flagOf(warmRun!, '--resume')).toBe(SESSION);
    expect(spawnRun!.argv).toContain('--fork-session');
    await s.adapter.dispose!();
  });

  it('what is fixed per process picks the process: another model, tool set or working directory gets its own', async () => {
    const s = await setup(ok, { warm: true });
    await s.registry.chat('claude-code', hello);
    await s.registry.chat('claude-code', { ...hello, model: 'haiku' });
    await s.registry.chat('claude-code', { ...hello, permissions: 'read-only', cwd: s.dir });
    await s.registry.chat('claude-code', hello);
    const runs = await readRecords(s.recordFile);
    const pids = runs.map((r) => r.pid);
    expect(new Set(pids.slice(0, 3)).size).toBe(3);
    expect(pids[3]).toBe(pids[0]);
    expect(flagOf(runs[1]!, '--model')).toBe('haiku');
    expect(runs[2]!.cwd).toBe(s.dir);
    // Plain chats share a neutral directory of the process's own (core's private session directories are empty).
    expect(path.basename(runs[0]!.cwd)).toBe('work');
    expect(runs[0]!.cwd.startsWith(path.join(s.stateDir, 'claude-code-warm'))).toBe(true);
  });

  it('a changed settings file (or CLI, or login) retires the process: the next chat gets a fresh one', async () => {
    const s = await setup(ok, { warm: true });
    await s.registry.chat('claude-code', hello);
    await mkdir(s.env.CLAUDE_CONFIG_DIR!, { recursive: true });
    await writeFile(path.join(s.env.CLAUDE_CONFIG_DIR!, 'settings.json'), '{"model":"haiku"}');
    await s.registry.chat('claude-code', hello);
    const [a, b] = await readRecords(s.recordFile);
    expect(b!.pid).not.toBe(a!.pid);
    expect(await waitForPidsGone([a!.pid])).toEqual([]);
  });

  it('stale processes filling the pool make way: the chat after a settings change is still warm', async () => {
    const s = await setup(ok, { warm: true, warmMaxProcesses: 2 });
    await s.registry.chat('claude-code', hello);
    await s.registry.chat('claude-code', { ...hello, model: 'haiku' });
    await mkdir(s.env.CLAUDE_CONFIG_DIR!, { recursive: true });
    await writeFile(path.join(s.env.CLAUDE_CONFIG_DIR!, 'settings.json'), '{}');
    expect((await s.registry.chat('claude-code', hello)).metadata.transport).toBe('warm');
    const pids = (await readRecords(s.recordFile)).map((r) => r.pid);
    expect(new Set(pids).size).toBe(3);
    expect(await waitForPidsGone(pids.slice(0, 2))).toEqual([]);
  });

  it('a killed warm process: the next chat works on a new one', async () => {
    const s = await setup(ok, { warm: true });
    await s.registry.chat('claude-code', hello);
    const [first] = await readRecords(s.recordFile);
    process.kill(first!.pid, 'SIGKILL');
    await waitForPidsGone([first!.pid]);
    const next = await s.registry.chat('claude-code', hello);
    expect(next.metadata.transport).toBe('warm');
    expect((await readRecords(s.recordFile)).at(-1)!.pid).not.toBe(first!.pid);
  });

  it('a process that dies before its turn said anything: the chat is retried on a fresh one, transparently', async () => {
    const marker = await makeTempDir('tb-claude-crash-');
    try {
      // Two lines (init, status) carry nothing for the caller.
      const s = await setup({ ...ok, crash: { afterLines: 2, onceFile: path.join(marker.dir, 'crashed') } }, { warm: true });
      const result = await s.registry.chat('claude-code', hello);
      expect(result).toMatchObject({ message: { content: 'Hello from mock' }, metadata: { transport: 'warm' } });
      const runs = await readRecords(s.recordFile);
      expect(runs).toHaveLength(2);
      expect(runs[1]!.pid).not.toBe(runs[0]!.pid);
    } finally {
      await marker.cleanup();
    }
  });

  it('a process that dies mid-answer: that chat fails with a typed error, the next one works on a new process', async () => {
    const marker = await makeTempDir('tb-claude-crash-');
    try {
      // Six lines: the text deltas have reached the caller.
      const s = await setup({ ...ok, crash: { afterLines: 6, onceFile: path.join(marker.dir, 'crashed') } }, { warm: true });
      const deltas: string[] = [];
      const failed = await (async () => {
        for await (const event of s.registry.stream('claude-code', hello)) if (event.type === 'delta') deltas.push(event.text);
      })().catch((e) => e);
      expect(deltas.join('')).toBe('Hello from mock');
      expect(failed).toBeInstanceOf(ProviderExecutionError);
      const next = await s.registry.chat('claude-code', hello);
      expect(next).toMatchObject({ message: { content: 'Hello from mock' }, metadata: { transport: 'warm' } });
      const runs = await readRecords(s.recordFile);
      expect(runs).toHaveLength(2);
      expect(await waitForPidsGone([runs[0]!.pid])).toEqual([]);
    } finally {
      await marker.cleanup();
    }
  });

  it('a timeout interrupts the turn; the process settles and takes the next chat', async () => {
    const s = await setup({ chat: { stdout: '{"type":"system","subtype":"init","session_id":"x"}\n', hang: true } }, { warm: true });
    const error = await s.registry.chat('claude-code', hello, { timeoutMs: 800 }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    const [run] = await readRecords(s.recordFile);
    await waitFor(async () => stdinLines((await readRecords(s.recordFile)).at(-1)!).length > 0, 2000, 'records');
    expect(pidAlive(run!.pid)).toBe(true);
    const again = await s.registry.chat('claude-code', hello, { timeoutMs: 800 }).catch((e) => e);
    expect(again).toBeInstanceOf(TimeoutError);
    expect((await readRecords(s.recordFile)).at(-1)!.pid).toBe(run!.pid);
  });

  it('a turn that cannot be interrupted ends with its process; a cancelled chat leaves nothing behind', async () => {
    const s = await setup({ chat: { hang: true }, ignoreInterrupt: true }, { warm: true });
    const controller = new AbortController();
    const pending = s.registry.chat('claude-code', hello, { signal: controller.signal }).catch((e) => e);
    // Cancelled once the turn is under way: a fixed delay could fire while the process was still
    // starting under load, and a process that started and took no turn stays pooled, as it should.
    await waitFor(async () => (await readRecords(s.recordFile)).some((r) => r.stdin !== undefined), 10_000, 'the turn to start');
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(AbortedError);
    expect(await waitForPidsGone(await readPids(s.pidFile), 8000)).toEqual([]);
  });

  it('a process that will not start: the chat spawns instead', async () => {
    const s = await setup({ ...ok, initFails: true }, { warm: true });
    const result = await s.registry.chat('claude-code', hello);
    expect(result.metadata.transport).toBe('spawn');
    expect(result.message.content).toBe('Hello from mock');
  });

  it('warm mode off (claudeCodeWarm false, or warmIdleMs 0): every chat spawns, and health says so', async () => {
    for (const config of [{ claudeCodeWarm: false }, { warmIdleMs: 0 }]) {
      const s = await setup(ok, { warm: true }, config);
      expect((await s.registry.chat('claude-code', hello)).metadata.transport).toBe('spawn');
      expect(s.registry.load('claude-code').transport).toBe('spawn');
    }
  });

  it('idle processes are shut down after warmIdleMs; close() ends the rest', async () => {
    const s = await setup(ok, { warm: true }, { warmIdleMs: 300 });
    await s.registry.chat('claude-code', hello);
    expect(await waitForPidsGone(await readPids(s.pidFile), 5000)).toEqual([]);
    s.registry.config.replace({});
    await s.registry.chat('claude-code', hello);
    const pids = await readPids(s.pidFile);
    expect(pids.filter(pidAlive)).toHaveLength(1);
    await s.registry.close();
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('prewarm starts a process for plain chats before the first one, which it then answers', async () => {
    const s = await setup(ok, { warm: true });
    await s.registry.prewarm();
    const [pid] = await readPids(s.pidFile);
    expect(pidAlive(pid!)).toBe(true);
    await s.registry.chat('claude-code', hello);
    expect((await readRecords(s.recordFile))[0]!.pid).toBe(pid);
  });

  it('a turn that started a background job retires its process after answering', async () => {
    const s = await setup({ chat: { stdoutFile: capture('claude-background-job.out') } }, { warm: true });
    const result = await s.registry.chat('claude-code', { ...hello, permissions: 'workspace-write' });
    expect(result.metadata.transport).toBe('warm');
    expect(await waitForPidsGone(await readPids(s.pidFile), 5000)).toEqual([]);
  });
});
