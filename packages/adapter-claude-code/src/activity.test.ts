import { describe, expect, it } from '@jest/globals';
import type { Activity, StreamEvent } from '@toolbridge/core';
import { StreamParser } from './events.js';
import { captureText } from './testing/fake-claude.js';

const exit0 = { exitCode: 0, signal: null, stderrTail: '' };

async function replay(name: string, lines?: (all: string[]) => string[]) {
  const parser = new StreamParser();
  const all = (await captureText(name)).split('\n');
  const events: StreamEvent[] = [];
  for (const line of lines ? lines(all) : all) events.push(...parser.push(line).events);
  const activities = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
  return { parser, events, activities };
}

/** Each step's updates, in order: `id → [status, ...]`. */
const statuses = (activities: Activity[]) => {
  const out: Record<string, string[]> = {};
  for (const a of activities) (out[a.id] ??= []).push(a.status);
  return out;
};

describe('activity from real captures', () => {
  it('workspace-write: a command, a new file, an edit, a failing command, a denied write, a read', async () => {
    const { activities, parser } = await replay('claude-agent-workspace-write.out');
    // Every step starts, then ends exactly once, under one id.
    for (const s of Object.values(statuses(activities)))
      expect([
        ['started', 'completed'],
        ['started', 'failed'],
      ]).toContainEqual(s);
    const done = activities.filter((a) => a.status !== 'started');
    expect(done.map((a) => [a.kind, a.status])).toEqual([
      ['command', 'completed'],
      ['file_change', 'completed'],
      ['file_change', 'completed'],
      ['command', 'failed'],
      ['file_change', 'failed'],
      ['tool_call', 'completed'],
    ]);
    expect(done[0]).toMatchObject({ command: 'echo hi > out.txt', exitCode: 0, title: 'Write hi to out.txt' });
    expect(done[1]).toMatchObject({
      title: 'Write written.txt',
      changes: [{ path: expect.stringMatching(/\/work\/written\.txt$/), kind: 'add' }],
    });
    expect(done[2]).toMatchObject({ changes: [{ path: expect.stringMatching(/\/work\/existing\.txt$/), kind: 'update' }] });
    expect(done[3]).toMatchObject({
      command: 'ls missing-dir',
      exitCode: 2,
      outputTail: expect.stringContaining('No such file or directory'),
    });
    expect(done[4]).toMatchObject({
      title: expect.stringMatching(/^Write escaped\.txt \(denied: Permission for this tool use was denied/),
    });
    expect(done[5]).toMatchObject({ name: 'Read', output: expect.stringContaining('inside') });
    expect(parser.finish(exit0).metadata).toMatchObject({ permissionDenials: 1, numTurns: 7 });
  });

  it('read-only: a write to a tool that is not there fails, and says why', async () => {
    const { activities } = await replay('claude-agent-read-only.out');
    expect(activities).toEqual([
      expect.objectContaining({ kind: 'file_change', status: 'started' }),
      expect.objectContaining({
        kind: 'file_change',
        status: 'failed',
        title:
          'Write written.txt (failed: Error: No such tool available: Write. Write is disabled for this session, in subagents as well as here.)',
      }),
    ]);
  });

  it('TodoWrite and the Task tools become one plan, updated in place', async () => {
    const todo = (await replay('claude-plan-todowrite.out')).activities.filter((a) => a.kind === 'plan');
    expect(todo.map((a) => [a.id, a.status])).toEqual([
      ['plan', 'started'],
      ['plan', 'updated'],
    ]);
    expect(todo[1]).toMatchObject({
      items: [
        { text: 'Write the file', done: true },
        { text: 'Check the result', done: false },
      ],
      title: 'Plan (1/2 done)',
    });
    const tasks = (await replay('claude-plan-tasks.out')).activities.filter((a) => a.kind === 'plan');
    expect(tasks.at(-1)).toMatchObject({
      items: [
        { text: 'Write the file', done: true },
        { text: 'Check the result', done: false },
      ],
    });
    expect(tasks.length).toBeGreaterThanOrEqual(4);
  });

  it('web search, thinking and a background command', async () => {
    const search = (await replay('claude-websearch.out')).activities;
    expect(search.map((a) => [a.kind, a.status])).toEqual([
      ['web_search', 'started'],
      ['web_search', 'completed'],
    ]);
    expect(search[0]).toMatchObject({ query: 'toolbridge mock query' });
    const thinking = (await replay('claude-thinking.out')).activities;
    expect(thinking).toContainEqual(expect.objectContaining({ kind: 'reasoning', status: 'completed', text: expect.any(String) }));
    const background = (await replay('claude-background-job.out')).activities.find((a) => a.status !== 'started');
    // Still running when the call answered: no exit code to report.
    expect(background).toMatchObject({ kind: 'command', status: 'completed', title: 'background job (in background)' });
    expect(background).not.toHaveProperty('exitCode');
  });

  it('an unknown event or block is passed on as `other`, never dropped, never a crash', () => {
    const p = new StreamParser();
    const events = [
      '{"type":"brand_new_event","x":1}',
      '{"type":"system","subtype":"compact_boundary","message":"compacted"}',
      '{"type":"assistant","message":{"id":"m","content":[{"type":"redacted_thinking","data":"x"}]}}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"never-started","content":"x"}]}}',
      '{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t","name":"mcp__github__create_issue","input":{"title":"x"}}]}}',
    ].flatMap((l) => p.push(l).events);
    expect(events.map((e) => (e.type === 'activity' ? [e.activity.kind, e.activity.title] : e.type))).toEqual([
      ['other', 'brand_new_event'],
      ['other', 'system:compact_boundary'],
      ['other', 'assistant:redacted_thinking'],
      ['tool_call', 'github: create_issue'],
    ]);
    expect(events.at(-1)).toMatchObject({ activity: { name: 'create_issue', server: 'github', input: '{"title":"x"}' } });
  });
});
