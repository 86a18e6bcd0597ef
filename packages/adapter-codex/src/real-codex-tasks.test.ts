import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Activity, ChatRequest, PermissionLevel, StreamEvent } from '@toolbridge/core';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import type { MockBehaviour } from './testing/mock-responses-server.js';
import { startRealCodex, TRANSPORTS, type RealCodex } from './testing/real-codex.js';

/**
 * Agent tasks with the real `codex` (and its real bubblewrap sandbox) against the mock: the mock
 * asks for a shell command (`exec_command`, the shell tool of a model Codex's catalog does not
 * know) or a patch (`apply_patch`, offered to catalog models such as gpt-5.5), then answers.
 */

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const PATCH = '*** Begin Patch\n*** Add File: patched.txt\n+hello from apply_patch\n*** End Patch\n';
const shell = (cmd: string): MockBehaviour => ({
  kind: 'calls',
  calls: [{ type: 'function_call', name: 'exec_command', arguments: { cmd } }],
});
const patch: MockBehaviour = { kind: 'calls', calls: [{ type: 'custom_tool_call', name: 'apply_patch', input: PATCH }] };
const done: MockBehaviour = { kind: 'reply', text: 'All done.' };

async function workDir(): Promise<string> {
  const t = await makeTempDir('toolbridge-codex-task-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** Run one task, collecting its activity events and result. */
async function task(codex: RealCodex, cwd: string, permissions: PermissionLevel, extra: Partial<ChatRequest> = {}) {
  const events: StreamEvent[] = [];
  for await (const e of codex.registry.stream(
    'codex',
    { messages: [{ role: 'user', content: 'Do the task' }], cwd, permissions, ...extra },
    { timeoutMs: 60_000 },
  ))
    events.push(e);
  const activity = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
  const result = events.flatMap((e) => (e.type === 'result' ? [e.result] : []))[0]!;
  return { activity, result, of: (kind: Activity['kind']) => activity.filter((a) => a.kind === kind) };
}

describe.each(TRANSPORTS)('real codex 0.169.0: agent activity and permission levels (%s)', (transport) => {
  let codex: RealCodex;
  beforeAll(async () => {
    codex = await startRealCodex({ warm: transport === 'warm' });
  });
  afterAll(async () => {
    await codex?.close();
  });

  it('workspace-write: the command arrives started → completed with its exit code, and its file is written in cwd', async () => {
    const cwd = await workDir();
    codex.mock.queue(shell('echo hi > out.txt && echo written'), done);
    const { of, result } = await task(codex, cwd, 'workspace-write');
    const steps = of('command');
    expect(steps.map((a) => a.status)).toEqual(['started', 'completed']);
    expect(new Set(steps.map((a) => a.id)).size).toBe(1);
    expect(steps[1]).toMatchObject({ command: expect.stringContaining('echo hi > out.txt'), exitCode: 0, outputTail: 'written' });
    expect(readFileSync(path.join(cwd, 'out.txt'), 'utf8')).toBe('hi\n');
    expect(result.message.content).toBe('All done.');
    expect(result.metadata).toMatchObject({ transport, permissions: { requested: 'workspace-write', applied: 'workspace-write' } });
    expect(result.activities!.find((a) => a.kind === 'command')).toMatchObject({ status: 'completed', exitCode: 0 });
  }, 120_000);

  it('workspace-write: a patch is a file_change with the path relative to cwd, and the file exists', async () => {
    const cwd = await workDir();
    codex.mock.queue(patch, done);
    const { of } = await task(codex, cwd, 'workspace-write', { model: 'gpt-5.5' });
    expect(of('file_change').map((a) => a.status)).toEqual(['started', 'completed']);
    expect(of('file_change')[1]).toMatchObject({ changes: [{ path: 'patched.txt', kind: 'add' }] });
    expect(readFileSync(path.join(cwd, 'patched.txt'), 'utf8')).toBe('hello from apply_patch\n');
  }, 120_000);

  it('workspace-write stays in the workspace and additionalDirs: /tmp is not writable', async () => {
    const [cwd, extra] = [await workDir(), await workDir()];
    const outside = path.join(path.dirname(cwd), `toolbridge-codex-outside-${process.pid}.txt`);
    codex.mock.queue(shell(`echo a > ${extra}/extra.txt; echo b > ${outside}; echo rc=$?`), done);
    const { of } = await task(codex, cwd, 'workspace-write', { additionalDirs: [extra] });
    expect(readFileSync(path.join(extra, 'extra.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(outside)).toBe(false);
    expect(of('command').at(-1)).toMatchObject({ status: 'completed', outputTail: expect.stringContaining('Read-only file system') });
  }, 120_000);

  it('read-only: the write fails, no file appears, and the (itemless) blocked command is reported as failed', async () => {
    const cwd = await workDir();
    codex.mock.queue(shell('echo hi > out.txt'), done);
    const { of, result } = await task(codex, cwd, 'read-only');
    expect(existsSync(path.join(cwd, 'out.txt'))).toBe(false);
    // Codex may start an item for the command and never finish it, or report none: either way the step ends failed.
    const steps = of('command');
    expect(new Set(steps.map((a) => a.id)).size).toBe(1);
    expect(steps.at(-1)).toMatchObject({
      status: 'failed',
      command: expect.stringContaining('echo hi > out.txt'),
      exitCode: 1,
      outputTail: expect.stringContaining('Read-only file system'),
    });
    expect(result.metadata.permissions).toMatchObject({ requested: 'read-only', applied: 'read-only' });
  }, 120_000);

  it('read-only: a patch is rejected, reported as a failed file_change, and nothing is written', async () => {
    const cwd = await workDir();
    codex.mock.queue(patch, done);
    const { of } = await task(codex, cwd, 'read-only', { model: 'gpt-5.5' });
    expect(existsSync(path.join(cwd, 'patched.txt'))).toBe(false);
    expect(of('file_change')).toEqual([
      expect.objectContaining({
        status: 'failed',
        changes: [{ path: 'patched.txt', kind: 'add' }],
        title: expect.stringContaining('read-only sandbox'),
      }),
    ]);
  }, 120_000);

  it('read-only: a patch inside a shell command (apply_patch <<EOF) is refused and reported as a failed file_change', async () => {
    const cwd = await workDir();
    codex.mock.queue(shell(`apply_patch <<'EOF'\n${PATCH}EOF`), done);
    const { of } = await task(codex, cwd, 'read-only');
    expect(existsSync(path.join(cwd, 'patched.txt'))).toBe(false);
    expect(of('file_change')).toEqual([
      expect.objectContaining({
        status: 'failed',
        changes: [{ path: 'patched.txt', kind: 'add' }],
        title: expect.stringContaining('patch rejected'),
      }),
    ]);
  }, 120_000);

  it('reports reasoning and the plan', async () => {
    const cwd = await workDir();
    const plan = (second: string) => ({
      kind: 'calls' as const,
      calls: [
        {
          type: 'function_call' as const,
          name: 'update_plan',
          arguments: {
            plan: [
              { step: 'Look around', status: 'completed' },
              { step: 'Answer', status: second },
            ],
          },
        },
      ],
    });
    codex.mock.queue(plan('in_progress'), plan('completed'), { kind: 'reply', text: 'Planned.', reasoning: ['**Thinking** it over'] });
    const { of } = await task(codex, cwd, 'read-only');
    const steps = of('plan');
    expect(steps.length).toBeGreaterThan(0);
    expect(new Set(steps.map((a) => a.id)).size).toBe(1);
    expect(steps.at(-1)).toMatchObject({
      items: [
        { text: 'Look around', done: true },
        { text: 'Answer', done: true },
      ],
    });
    expect(of('reasoning')).toEqual([expect.objectContaining({ text: '**Thinking** it over', status: 'completed' })]);
  }, 120_000);
});
