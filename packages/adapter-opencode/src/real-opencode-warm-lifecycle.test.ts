import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ProviderExecutionError } from '@toolbridge/core';
import { waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { startRealOpenCode, type RealOpenCode } from './testing/real-opencode.js';

/**
 * The warm server's life with the real `opencode serve`: replaced when OpenCode's config changes
 * or it dies (transparently when nothing was said yet, a typed error after), shut down when idle,
 * off with `warmIdleMs: 0`, and nothing of it (nor a command it ran) left behind.
 */

const T = { timeoutMs: 90_000 };
let oc: RealOpenCode;
let cwd: string;
const say = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], cwd, ...extra });

beforeAll(async () => {
  // Two directories per server here (16 by default), to see a server replaced after them.
  oc = await startRealOpenCode(
    { kind: 'steps', steps: [{ text: 'ok' }] },
    { opencodeModel: 'mock/mock-model', warmIdleMs: 120_000 },
    { warmMaxDirectories: 2 },
  );
  cwd = await mkdtemp(path.join(oc.home, 'work-'));
}, 120_000);
afterAll(async () => {
  await oc?.close();
  if (oc) expect(oc.left()).toEqual([]);
}, 60_000);

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}
/** The `opencode serve` processes of this HOME (not the guard that runs them). */
const serves = () => oc.left().filter((pid) => /opencode(\.exe)?$/.test(argvOf(pid)[0] ?? '') && argvOf(pid)[1] === 'serve');
const sleepers = () => oc.left().filter((pid) => argvOf(pid).join(' ').includes('sleep 47'));

describe('real opencode 1.18.33: warm server lifecycle', () => {
  it('a server killed before its chat said anything is replaced transparently; killed after, the chat is a typed error; the next chat works', async () => {
    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'warm' }] };
    await oc.registry.chat('opencode', say('start'), T);
    const [first] = serves();
    expect(first).toBeDefined();

    oc.mock.behaviour = { kind: 'hang' };
    const asked = oc.mock.requests.length;
    const pending = oc.registry.chat('opencode', say('killed before anything was said'), T);
    await waitFor(() => oc.mock.requests.length > asked, 30_000, 'the model to be asked');
    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'ANSWERED-BY-A-NEW-SERVER' }] };
    process.kill(first!, 'SIGKILL');
    const retried = await pending;
    expect(retried.message.content).toBe('ANSWERED-BY-A-NEW-SERVER');
    expect(retried.metadata.transport).toBe('warm');
    const [second] = serves();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);

    // Now a step is under way (a command the agent runs) when the server dies.
    oc.mock.behaviour = {
      kind: 'steps',
      steps: [{ calls: [{ name: 'bash', args: { command: 'sleep 47', description: 'wait' } }] }, { text: 'never' }],
    };
    const events: string[] = [];
    const broken = (async () => {
      for await (const e of oc.registry.stream('opencode', say('run a command', { permissions: 'full' }), T)) {
        if (e.type === 'activity') events.push(`${e.activity.kind}:${e.activity.status}`);
      }
    })();
    await waitFor(() => sleepers().length > 0, 60_000, 'the agent command to run');
    process.kill(second!, 'SIGKILL');
    await expect(broken).rejects.toBeInstanceOf(ProviderExecutionError);
    expect(events[0]).toBe('command:started');
    // The command the dead server had started goes with it.
    expect(await waitForPidsGone(sleepers(), 10_000)).toEqual([]);

    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'NEXT-CHAT-WORKS' }] };
    expect((await oc.registry.chat('opencode', say('next'), T)).message.content).toBe('NEXT-CHAT-WORKS');
  }, 240_000);

  it('a changed OpenCode config file retires the server: the next chat gets a new one and the old one is gone', async () => {
    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'before' }] };
    await oc.registry.chat('opencode', say('before'), T);
    const before = serves();
    await mkdir(path.join(oc.home, '.config', 'opencode'), { recursive: true });
    await writeFile(path.join(oc.home, '.config', 'opencode', 'opencode.json'), '{"$schema":"https://opencode.ai/config.json"}\n');
    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'after' }] };
    const after = await oc.registry.chat('opencode', say('after'), T);
    expect(after.metadata.transport).toBe('warm');
    expect(await waitForPidsGone(before, 10_000)).toEqual([]);
    expect(serves()).toHaveLength(1);
    expect(serves()).not.toEqual(before);
  }, 240_000);

  it('a server that has served warmMaxDirectories directories is replaced once its chat is done (serve never frees them)', async () => {
    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'dirs' }] };
    await oc.registry.chat('opencode', say('in the usual directory'), T);
    const before = serves();
    // No cwd: core's private directory for the chat, a second directory for this server.
    await oc.registry.chat('opencode', { messages: [{ role: 'user', content: 'in a private directory' }] }, T);
    expect(await waitForPidsGone(before, 10_000)).toEqual([]);
    const next = await oc.registry.chat('opencode', say('on a new server'), T);
    expect(next.metadata.transport).toBe('warm');
    expect(serves()).toHaveLength(1);
    expect(serves()).not.toEqual(before);
  }, 240_000);

  it('shuts an idle server down after warmIdleMs, and warmIdleMs 0 spawns opencode run', async () => {
    oc.registry.config.replace({ opencodeModel: 'mock/mock-model', warmIdleMs: 1_500 });
    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'idle soon' }] };
    await oc.registry.chat('opencode', say('then idle'), T);
    const server = oc.left();
    expect(server.length).toBeGreaterThan(0);
    expect(await waitForPidsGone(server, 15_000)).toEqual([]);
    expect(oc.registry.load('opencode').warm).toMatchObject({ processes: 0 });

    oc.registry.config.replace({ opencodeModel: 'mock/mock-model', warmIdleMs: 0 });
    const spawned = await oc.registry.chat('opencode', say('spawned'), T);
    expect(spawned.message.content).toBe('idle soon');
    expect(spawned.metadata.transport).toBe('spawn');
    expect(oc.left()).toEqual([]);
  }, 240_000);
});
