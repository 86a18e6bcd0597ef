import { describe, expect, it } from '@jest/globals';
import type { Activity } from '@toolbridge/core/wire';
import { ActivityTimeline, activityView, timelineSummary } from './activity.js';

describe('ActivityTimeline', () => {
  it('keeps one row per step id, in the order steps started, updated in place', () => {
    const t = new ActivityTimeline();
    t.apply({ id: 'c1', kind: 'command', status: 'started', title: 'ls', command: 'ls -la' });
    t.apply({ id: 'r1', kind: 'reasoning', status: 'completed', title: 'Thinking', text: 'look first' });
    // An update may leave out what it does not change (here the command); the row keeps it.
    t.apply({ id: 'c1', kind: 'command', status: 'completed', title: 'ls', exitCode: 0, outputTail: 'a.txt' } as Activity);
    expect(t.items.map((a) => [a.id, a.status])).toEqual([
      ['c1', 'completed'],
      ['r1', 'completed'],
    ]);
    // The update did not repeat the command; the row still shows it.
    expect(t.items[0]).toMatchObject({ command: 'ls -la', exitCode: 0, outputTail: 'a.txt' });
    expect(timelineSummary(t.items)).toBe('2 steps');
  });

  it('takes a non-streamed answer’s final states', () => {
    const t = new ActivityTimeline();
    t.applyAll([{ id: 'p', kind: 'plan', status: 'updated', title: 'Plan', items: [{ text: 'a', done: true }] }]);
    expect(t.size).toBe(1);
    expect(timelineSummary(t.items)).toBe('1 step, 1 running');
  });
});

describe('activityView', () => {
  it('shows a command with its exit code and output tail', () => {
    const v = activityView({
      id: 'x',
      kind: 'command',
      status: 'failed',
      title: 'Run tests',
      command: 'npm test',
      exitCode: 1,
      outputTail: 'FAIL',
    });
    expect(v).toMatchObject({ kindLabel: 'Command', statusLabel: 'failed', facts: [['Exit code', '1']] });
    expect(v.blocks).toEqual([
      { label: 'Command', text: 'npm test' },
      { label: 'Output (last lines)', text: 'FAIL' },
    ]);
    expect(timelineSummary([{ id: 'x', kind: 'command', status: 'failed', title: '', command: 'npm test' }])).toBe('1 step, 1 failed');
    // A title that is the command itself is not repeated below it.
    expect(activityView({ id: 'y', kind: 'command', status: 'completed', title: 'ls', command: 'ls' }).blocks).toEqual([]);
  });

  it('shows file changes, MCP tool calls, searches, plans and unknown steps', () => {
    expect(
      activityView({ id: 'f', kind: 'file_change', status: 'completed', title: 'edit', changes: [{ path: 'a.ts', kind: 'add' }] }).changes,
    ).toEqual([{ path: 'a.ts', kind: 'add' }]);
    expect(
      activityView({ id: 't', kind: 'tool_call', status: 'completed', title: 'x', name: 'read', server: 'fs', input: '{}' }),
    ).toMatchObject({
      facts: [['Tool', 'fs / read']],
      blocks: [{ label: 'Input', text: '{}' }],
    });
    expect(activityView({ id: 'w', kind: 'web_search', status: 'started', title: 's', query: 'q' }).facts).toEqual([['Query', 'q']]);
    expect(
      activityView({ id: 'p', kind: 'plan', status: 'updated', title: 'Plan', items: [{ text: 'a', done: false }] }).plan,
    ).toHaveLength(1);
    expect(activityView({ id: 'o', kind: 'other', status: 'completed', title: 'x', rawType: 'new_thing', detail: 'd' })).toMatchObject({
      kindLabel: 'Other step',
      facts: [['Type', 'new_thing']],
      text: 'd',
    });
  });

  it('cuts very long texts', () => {
    const v = activityView({ id: 'r', kind: 'reasoning', status: 'completed', title: 'r', text: 'x'.repeat(10_000) });
    expect(v.text!.length).toBeLessThan(4100);
    expect(v.text!.endsWith('…')).toBe(true);
  });
});
