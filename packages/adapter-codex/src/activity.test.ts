import { afterEach, describe, expect, it } from '@jest/globals';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Activity, type ChatRequest, type StreamEvent, type ToolbridgeConfig } from '@toolbridge/core';
import { createCallContext } from '@toolbridge/core/runtime';
import { adapterStream } from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from './adapter.js';
import { capture, CAPTURES_DIR, fakeCodexEnv, REPLAYS, type Replay } from './testing/fake-codex.js';

/**
 * Agent steps replayed from real `codex exec --json` runs against the mock (src/testing/captures:
 * `codex-ww-*` in workspace-write, `codex-ro-*` in read-only, `codex-plan`), with the session log
 * ("rollout") Codex wrote for the run where the events leave something out.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const threadOf = (out: string) => JSON.parse(out.split('\n')[0]!).thread_id as string;

async function run(exec: Replay, options: { rollout?: string; config?: ToolbridgeConfig; request?: Partial<ChatRequest> } = {}) {
  const fake = await fakeCodexEnv({ version: REPLAYS.version, exec });
  cleanups.push(fake.cleanup);
  if (options.rollout) {
    // Where Codex keeps it: sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl.
    const dir = path.join(fake.codexHome, 'sessions', '2026', '11', '23');
    await mkdir(dir, { recursive: true });
    await copyFile(path.join(CAPTURES_DIR, options.rollout), path.join(dir, `rollout-2026-11-23T09-40-57-${threadOf(exec.stdout!)}.jsonl`));
  }
  const { ctx, done } = createCallContext({ config: options.config ?? {}, env: fake.env, toolId: 'codex' }, { timeoutMs: 30_000 });
  cleanups.push(async () => done());
  const events: StreamEvent[] = [];
  const request = { messages: [{ role: 'user' as const, content: 'Do the task' }], ...options.request };
  for await (const e of adapterStream(createCodexAdapter(), request, ctx)) events.push(e);
  const activity = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
  const result = events.flatMap((e) => (e.type === 'result' ? [e.result] : []))[0]!;
  return { events, result, of: (kind: Activity['kind']) => activity.filter((a) => a.kind === kind) };
}

const replay = (name: string): Replay => ({ stdout: capture(`${name}.out`), stderr: capture(`${name}.err`) });

describe('activity from real runs', () => {
  it('workspace-write command: started → completed on one id, with exit code and output', async () => {
    const { of, result } = await run(replay('codex-ww-command'), { config: { codexSandbox: 'workspace-write' } });
    expect(of('command')).toEqual([
      expect.objectContaining({ id: 'item_1', status: 'started', command: "/bin/bash -lc 'echo hi > out.txt && echo written'" }),
      expect.objectContaining({ id: 'item_1', status: 'completed', exitCode: 0, outputTail: 'written' }),
    ]);
    expect(result.message.content).toBe('All done.');
    expect(result.metadata).toMatchObject({
      sandbox: 'workspace-write',
      permissions: {
        requested: 'workspace-write',
        applied: 'workspace-write',
        source: 'tool-config',
        note: expect.stringContaining('.git'),
      },
    });
  });

  it('workspace-write patch: a file_change with its path and kind', async () => {
    const { of } = await run(replay('codex-ww-patch'));
    expect(of('file_change').map((a) => [a.status, a.kind === 'file_change' && a.changes])).toEqual([
      ['started', [{ path: '/tmp/cxr-agent-LoWc8b/patched.txt', kind: 'add' }]],
      ['completed', [{ path: '/tmp/cxr-agent-LoWc8b/patched.txt', kind: 'add' }]],
    ]);
  });

  it('read-only, the command item Codex reported failed: that item, and nothing added from the log', async () => {
    const { of } = await run(replay('codex-ro-command'), { rollout: 'codex-ro-command.rollout.jsonl' });
    expect(of('command').map((a) => [a.id, a.status])).toEqual([
      ['item_1', 'started'],
      ['item_1', 'failed'],
    ]);
    expect(of('command')[1]).toMatchObject({ exitCode: 1, outputTail: expect.stringContaining('Read-only file system') });
  });

  it('read-only, a blocked command Codex reported no item for: a failed step from the session log', async () => {
    const { of, result } = await run(replay('codex-ro-command-noitem'), { rollout: 'codex-ro-command-noitem.rollout.jsonl' });
    expect(of('command')).toEqual([
      {
        id: 'call_mock_1_0',
        kind: 'command',
        status: 'failed',
        title: 'echo hi > out.txt',
        command: 'echo hi > out.txt',
        exitCode: 1,
        outputTail: '/bin/bash: line 1: out.txt: Read-only file system',
      },
    ]);
    expect(result.message.content).toBe('All done.');
  });

  it('read-only, a command item Codex started and never finished: the same id goes on to failed', async () => {
    // Seen with the real CLI too: the same blocked command sometimes gets an item.started and nothing more.
    const out = capture('codex-ro-command.out')
      .split('\n')
      .filter((l) => !l.includes('"item.completed","item":{"id":"item_1"'))
      .join('\n');
    const { of } = await run({ stdout: out, stderr: capture('codex-ro-command.err') }, { rollout: 'codex-ro-command.rollout.jsonl' });
    // This log has the command's completion, so the log adds nothing: the step stays as Codex last reported it.
    expect(of('command').map((a) => a.status)).toEqual(['started']);
    const noItemLog = await run(
      { stdout: out.replace(threadOf(out), threadOf(capture('codex-ro-command-noitem.out'))), stderr: '' },
      { rollout: 'codex-ro-command-noitem.rollout.jsonl' },
    );
    expect(noItemLog.of('command').map((a) => [a.id, a.status, a.kind === 'command' && a.command])).toEqual([
      ['item_1', 'started', "/bin/bash -lc 'echo hi > out.txt'"],
      ['item_1', 'failed', "/bin/bash -lc 'echo hi > out.txt'"],
    ]);
  });

  it('read-only patch: rejected without an item; a failed file_change from the session log', async () => {
    const { of } = await run(replay('codex-ro-patch'), { rollout: 'codex-ro-patch.rollout.jsonl' });
    expect(of('file_change')).toEqual([
      {
        id: 'call_mock_1_0',
        kind: 'file_change',
        status: 'failed',
        title: 'add patched.txt: patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings',
        changes: [{ path: 'patched.txt', kind: 'add' }],
      },
    ]);
  });

  it('read-only patch inside a shell command (apply_patch <<EOF): refused without an item; a failed file_change from the session log', async () => {
    const { of } = await run(replay('codex-ro-shell-patch'), { rollout: 'codex-ro-shell-patch.rollout.jsonl' });
    expect(of('command')).toEqual([]);
    expect(of('file_change')).toEqual([
      {
        id: 'call_mock_1_0',
        kind: 'file_change',
        status: 'failed',
        title: 'add patched.txt: patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings',
        changes: [{ path: 'patched.txt', kind: 'add' }],
      },
    ]);
  });

  it('plan and reasoning; the plan completing after the answer does not take the answer’s place', async () => {
    const { of, result, events } = await run(replay('codex-plan'));
    expect(of('plan').map((a) => [a.id, a.status, a.kind === 'plan' && a.items.map((i) => i.done)])).toEqual([
      ['item_1', 'started', [true, false]],
      ['item_1', 'updated', [true, true]],
      ['item_1', 'completed', [true, true]],
    ]);
    expect(of('reasoning')).toEqual([expect.objectContaining({ text: '**Thinking** it over', title: 'Thinking it over' })]);
    expect(result.message.content).toBe('Planned.');
    expect(events.filter((e) => e.type === 'delta').map((e) => e.type === 'delta' && e.text)).toEqual(['Planned.']);
  });
});
