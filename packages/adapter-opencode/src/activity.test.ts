import { describe, expect, it } from '@jest/globals';
import type { Activity, StreamEvent } from '@toolbridge/core';
import { ActivityTracker, partActivity, toolActivity } from './activity.js';
import { RunAccumulator } from './events.js';
import { capture } from './testing/captures.js';

function replay(name: string): StreamEvent[] {
  const run = new RunAccumulator();
  return capture(name)
    .split('\n')
    .flatMap((line) => run.accept(line));
}

const activities = (events: StreamEvent[]): Activity[] => events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));

describe('activity of a recorded `opencode run --thinking` turn (todowrite, bash, write, failing edit, read, bash)', () => {
  const events = replay('opencode-run-activity.out');
  const all = activities(events);

  it('announces every tool step as started, then its final state, under one id', () => {
    const ids = [...new Set(all.filter((a) => a.kind !== 'reasoning').map((a) => a.id))];
    expect(ids).toEqual(['call_0_0', 'call_1_0', 'call_2_0', 'call_3_0', 'call_4_1', 'call_4_0']);
    for (const id of ids)
      expect(all.filter((a) => a.id === id).map((a) => a.status)).toEqual(['started', expect.stringMatching(/completed|failed/)]);
  });

  it('maps the plan, the command with its exit code, the written file and the failed edit', () => {
    const final = (id: string) => all.filter((a) => a.id === id).at(-1);
    expect(final('call_0_0')).toEqual({
      id: 'call_0_0',
      kind: 'plan',
      status: 'completed',
      title: '2 todos',
      items: [
        { text: 'List files', done: false },
        { text: 'Write notes.txt', done: false },
      ],
    });
    expect(final('call_1_0')).toMatchObject({
      kind: 'command',
      status: 'failed',
      command: 'ls -la && echo "exit-code-test"; false',
      exitCode: 1,
      outputTail: expect.stringContaining('exit-code-test'),
    });
    expect(final('call_2_0')).toMatchObject({
      kind: 'file_change',
      status: 'completed',
      changes: [{ path: '/tmp/oc-activity-WUks8c/notes.txt', kind: 'add' }],
    });
    expect(final('call_3_0')).toMatchObject({
      kind: 'file_change',
      status: 'failed',
      changes: [{ path: '/tmp/oc-activity-WUks8c/missing.txt', kind: 'update' }],
    });
    expect(final('call_3_0')!.title).toContain('not found');
    expect(final('call_4_1')).toMatchObject({ kind: 'tool_call', name: 'read', status: 'completed' });
    expect(final('call_4_0')).toMatchObject({ kind: 'command', status: 'completed', exitCode: 0, outputTail: 'one\ntwo' });
  });

  it('passes the reasoning on and keeps the answer text', () => {
    expect(all.filter((a) => a.kind === 'reasoning').map((a) => (a.kind === 'reasoning' ? a.text : ''))).toEqual([
      'Let me plan this.',
      'All done.',
    ]);
    const text = events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
    expect(text).toBe('I will make a plan.\n\nDone: listed, wrote notes.txt.');
  });
});

describe('a write refused under read-only (recorded)', () => {
  it('is a failed step naming the tool the model wanted', () => {
    const all = activities(replay('opencode-run-readonly-write.out'));
    expect(all.map((a) => a.status)).toEqual(['started', 'failed']);
    expect(all[1]).toMatchObject({ kind: 'tool_call', name: 'write', title: expect.stringContaining("unavailable tool 'write'") });
  });
});

describe('serve-style parts (every state)', () => {
  const tool = (status: string, extra: Record<string, unknown> = {}) => ({
    type: 'tool',
    tool: 'bash',
    callID: 'call_9',
    id: 'prt_9',
    state: { status, input: { command: 'echo hi' }, ...extra },
  });

  it('goes pending → running → completed without a synthetic start, and ignores late updates', () => {
    const t = new ActivityTracker();
    const seen = [
      ...t.accept(tool('pending')),
      ...t.accept(tool('running')),
      ...t.accept(tool('completed', { output: 'hi\n', metadata: { exit: 0 } })),
      ...t.accept(tool('completed', { output: 'hi\n', metadata: { exit: 0 } })),
    ];
    expect(seen.map((a) => a.status)).toEqual(['started', 'updated', 'completed']);
    expect(seen.at(-1)).toMatchObject({ kind: 'command', exitCode: 0, outputTail: 'hi' });
  });

  it('maps web tools, patches and unknown parts', () => {
    expect(
      toolActivity({ type: 'tool', tool: 'webfetch', callID: 'c', state: { status: 'running', input: { url: 'https://x.test' } } }),
    ).toMatchObject({
      kind: 'web_search',
      status: 'updated',
      title: 'Fetch https://x.test',
    });
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** Update File: c.txt\n*** End Patch';
    expect(
      toolActivity({ type: 'tool', tool: 'patch', callID: 'p', state: { status: 'completed', input: { patchText: patch } } }),
    ).toMatchObject({
      kind: 'file_change',
      changes: [
        { path: 'a.txt', kind: 'add' },
        { path: 'b.txt', kind: 'delete' },
        { path: 'c.txt', kind: 'update' },
      ],
    });
    expect(partActivity({ type: 'compaction', id: 'prt_c' })).toEqual({
      id: 'prt_c',
      kind: 'other',
      status: 'completed',
      title: 'compaction',
      rawType: 'compaction',
    });
    expect(partActivity({ type: 'text', text: 'hi' })).toBeUndefined();
    expect(toolActivity({})).toMatchObject({ kind: 'tool_call', name: 'tool' });
  });
});
