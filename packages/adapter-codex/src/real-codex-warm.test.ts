import { afterEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError, ProviderExecutionError, TimeoutError, type ToolbridgeConfig } from '@toolbridge/core';
import { pidAlive, waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { startRealCodex, transcriptOf, type RealCodex } from './testing/real-codex.js';

/**
 * The warm transport with the real `codex app-server` against the mock: one server answers many
 * chats, each in a fresh thread; it is replaced when its settings change or it dies, shut down
 * when idle, and no turn or command outlives its chat. (Speed is measured in
 * benchmarks/codex-warm.bench.mjs, not here.)
 */

const open: RealCodex[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});
async function warmCodex(config: ToolbridgeConfig = {}): Promise<RealCodex> {
  const c = await startRealCodex();
  open.push(c);
  if (Object.keys(config).length) c.registry.config.replace(config);
  return c;
}

const say = (content: string) => ({ messages: [{ role: 'user' as const, content }] });
const sleepCommand = (cmd: string) => ({
  kind: 'calls' as const,
  calls: [{ type: 'function_call' as const, name: 'exec_command', arguments: { cmd } }],
});
/** Processes of this CODEX_HOME running `sleep` (a command the agent started). */
const sleepers = (c: RealCodex) => c.left().filter((pid) => /\bsleep\b/.test(readCmdline(pid)));
function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** SIGKILL each; one that exited since it was listed (the native server follows its shim) is no error. */
function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
}

describe('real codex 0.169.0: warm transport (codex app-server)', () => {
  it('one server answers chat after chat, each a fresh conversation: nothing of one reaches the next', async () => {
    const codex = await warmCodex();
    codex.mock.queue({ kind: 'reply', text: 'first' }, { kind: 'reply', text: 'second' });
    const first = await codex.registry.chat('codex', say('SECRET-OF-CALLER-ONE-5512'), { timeoutMs: 60_000 });
    const server = codex.left();
    expect(server.length).toBeGreaterThan(0);
    const second = await codex.registry.chat('codex', say('QUESTION-OF-CALLER-TWO'), { timeoutMs: 60_000 });
    expect([first.message.content, second.message.content]).toEqual(['first', 'second']);
    expect([first.metadata.transport, second.metadata.transport]).toEqual(['warm', 'warm']);
    expect(second.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    // The same processes answered both.
    expect(codex.left()).toEqual(server);
    const sent = JSON.stringify(codex.mock.modelRequests().at(-1));
    expect(sent).toContain('QUESTION-OF-CALLER-TWO');
    expect(sent).not.toContain('SECRET-OF-CALLER-ONE-5512');
    expect(transcriptOf(codex.mock.modelRequests().at(-1)!).filter((m) => m.startsWith('assistant'))).toEqual([]);
    const health = await codex.registry.health('codex');
    expect(health.load).toMatchObject({ transport: 'warm', warm: { processes: 1, busy: 0, idleTimeoutMs: 300_000 } });
    expect(health.load.warm!.rssBytes).toBeGreaterThan(10 * 2 ** 20);
  }, 120_000);

  it('runs concurrent chats on one server, each answered in its own thread', async () => {
    const codex = await warmCodex();
    codex.mock.behaviour = { kind: 'reply', text: 'parallel' };
    await codex.registry.chat('codex', say('warm up'), { timeoutMs: 60_000 });
    const server = codex.left();
    const results = await Promise.all([1, 2, 3].map((n) => codex.registry.chat('codex', say(`PARALLEL-${n}`), { timeoutMs: 60_000 })));
    expect(results.map((r) => r.message.content)).toEqual(['parallel', 'parallel', 'parallel']);
    expect(new Set(results.map((r) => r.metadata.nativeSessionId)).size).toBe(3);
    expect(codex.left()).toEqual(server);
    for (const body of codex.mock.modelRequests().slice(-3)) expect(JSON.stringify(body).match(/PARALLEL-\d/g)!.length).toBe(1);
  }, 120_000);

  it('a changed config.toml retires the server: the next chat gets a new one, and the old one is gone', async () => {
    const codex = await warmCodex();
    await codex.registry.chat('codex', say('before'), { timeoutMs: 60_000 });
    const before = codex.left();
    await appendFile(path.join(codex.codexHome, 'config.toml'), '\n# edited by the user\n');
    const after = await codex.registry.chat('codex', say('after'), { timeoutMs: 60_000 });
    expect(after.metadata.transport).toBe('warm');
    expect(await waitForPidsGone(before, 10_000)).toEqual([]);
    expect(codex.left().length).toBeGreaterThan(0);
  }, 120_000);

  it('a killed server is replaced: a crash before anything was said is retried on a fresh one, and the next chat works', async () => {
    const codex = await warmCodex();
    await codex.registry.chat('codex', say('start it'), { timeoutMs: 60_000 });
    killAll(codex.left());
    const next = await codex.registry.chat('codex', say('after the kill'), { timeoutMs: 60_000 });
    expect(next.metadata.transport).toBe('warm');
    // Killed mid-turn, with nothing streamed yet: answered on a new server.
    codex.mock.queue({ kind: 'hang' }, { kind: 'reply', text: 'retried' });
    const pending = codex.registry.chat('codex', say('crash me'), { timeoutMs: 60_000 });
    const requests = codex.mock.modelRequests().length;
    await waitFor(() => codex.mock.modelRequests().length > requests, 30_000, 'the model request');
    killAll(codex.left());
    expect((await pending).message.content).toBe('retried');
  }, 120_000);

  it('a crash after the chat has streamed a step is a typed error for that chat only', async () => {
    const codex = await warmCodex();
    codex.mock.queue(sleepCommand('sleep 45'));
    let seen = false;
    const error = await (async () => {
      for await (const e of codex.registry.stream('codex', { ...say('run it'), permissions: 'read-only' }, { timeoutMs: 60_000 })) {
        if (e.type === 'activity' && e.activity.kind === 'command' && !seen) {
          seen = true;
          killAll(codex.left().filter((p) => !/\bsleep\b/.test(readCmdline(p))));
        }
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect((error as Error).message).toMatch(/app-server exited/);
    codex.mock.queue({ kind: 'reply', text: 'fine again' });
    expect((await codex.registry.chat('codex', say('next'), { timeoutMs: 60_000 })).message.content).toBe('fine again');
    await waitFor(() => sleepers(codex).length === 0, 10_000, 'the orphaned command to end');
  }, 120_000);

  it('a deadline interrupts the turn; the server stays and answers the next chat', async () => {
    const codex = await warmCodex();
    await codex.registry.chat('codex', say('warm'), { timeoutMs: 60_000 });
    const server = codex.left();
    codex.mock.queue({ kind: 'hang' });
    const error = await codex.registry.chat('codex', say('hangs'), { timeoutMs: 2500 }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(codex.left()).toEqual(server);
    codex.mock.queue({ kind: 'reply', text: 'next one' });
    expect((await codex.registry.chat('codex', say('next'), { timeoutMs: 60_000 })).message.content).toBe('next one');
  }, 120_000);

  it('an interrupt leaves the agent’s command running, so that server is recycled: nothing of the turn survives', async () => {
    const codex = await warmCodex();
    // The model's next request (after the command has yielded) is never answered.
    codex.mock.queue(sleepCommand('sleep 60'));
    codex.mock.behaviour = { kind: 'hang' };
    const controller = new AbortController();
    let server: number[] = [];
    const error = await (async () => {
      for await (const e of codex.registry.stream('codex', { ...say('sleep'), permissions: 'read-only' }, { signal: controller.signal })) {
        // Codex has reported the command: an interrupt now leaves it running (measured).
        if (e.type === 'activity' && e.activity.kind === 'command' && e.activity.status === 'started') {
          await waitFor(() => sleepers(codex).length > 0, 10_000, 'the command to run');
          server = codex.left().filter((p) => !sleepers(codex).includes(p) && !/bwrap|sandbox/.test(readCmdline(p)));
          controller.abort();
        }
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(server.length).toBeGreaterThan(0);
    await waitFor(() => sleepers(codex).length === 0, 10_000, 'the command to end');
    expect(await waitForPidsGone(server, 10_000)).toEqual([]);
    codex.mock.behaviour = { kind: 'reply', text: 'fresh server' };
    expect((await codex.registry.chat('codex', say('next'), { timeoutMs: 60_000 })).message.content).toBe('fresh server');
  }, 120_000);

  it('a chat cancelled while its command starts leaves nothing running either', async () => {
    const codex = await warmCodex();
    codex.mock.queue(sleepCommand('sleep 60'));
    codex.mock.behaviour = { kind: 'hang' };
    const controller = new AbortController();
    const pending = codex.registry
      .chat('codex', { ...say('sleep'), permissions: 'read-only' }, { signal: controller.signal })
      .catch((e) => e);
    await waitFor(() => sleepers(codex).length > 0, 30_000, 'the command to start');
    controller.abort();
    const error = (await pending) as Error;
    // The class and the message: a failure then says what came instead.
    expect([error?.constructor?.name, error?.message]).toEqual([AbortedError.name, expect.any(String)]);
    await waitFor(() => sleepers(codex).length === 0, 10_000, 'the command to end').catch((e: Error) => {
      const ps = codex.left().map((pid) => `${pid} ${readCmdline(pid)}`);
      throw new Error(`${e.message}; still running: ${ps.join(' | ')}`);
    });
  }, 120_000);

  it('shuts an idle server down after warmIdleMs; 0 turns warm mode off', async () => {
    const codex = await warmCodex({ warmIdleMs: 400 });
    await codex.registry.chat('codex', say('briefly'), { timeoutMs: 60_000 });
    const server = codex.left();
    expect(server.length).toBeGreaterThan(0);
    expect(await waitForPidsGone(server, 10_000)).toEqual([]);
    expect((await codex.registry.health('codex', { refresh: true })).load.warm).toMatchObject({ processes: 0 });
    codex.registry.config.replace({ warmIdleMs: 0 });
    const spawned = await codex.registry.chat('codex', say('cold'), { timeoutMs: 60_000 });
    expect(spawned.metadata.transport).toBe('spawn');
    expect(codex.left()).toEqual([]);
  }, 120_000);

  it('a Codex profile is answered by `codex exec` (app-server cannot load one)', async () => {
    const codex = await warmCodex({ codexProfile: 'none-such' });
    const result = await codex.registry.chat('codex', say('with a profile'), { timeoutMs: 60_000 });
    expect(result.metadata.transport).toBe('spawn');
  }, 120_000);

  it('close() ends the server and everything under it', async () => {
    const codex = await warmCodex();
    await codex.registry.chat('codex', say('then close'), { timeoutMs: 60_000 });
    const server = codex.left();
    await codex.registry.close();
    expect(server.every((pid) => !pidAlive(pid))).toBe(true);
    expect(codex.left()).toEqual([]);
  }, 120_000);
});
