import { describe, expect, it } from '@jest/globals';
import { approvalDetails, PendingApprovals, secondsLeft } from './approvals.js';
import type { Approval } from '@toolbridge/core/wire';

const base = {
  toolId: 'claude-code',
  options: ['allow', 'allow_session', 'deny'] as Approval['options'],
  expiresAt: '2026-01-01T10:05:00.000Z',
};

describe('approvalDetails', () => {
  it('shows the command and its folder, the changed paths, or the tool and its input', () => {
    expect(approvalDetails({ ...base, id: 'a', kind: 'command', title: 'Run npm test', command: 'npm test', cwd: '/w' })).toEqual([
      '$ npm test',
      'in /w',
    ]);
    expect(
      approvalDetails({
        ...base,
        id: 'b',
        kind: 'file_change',
        title: 'Edit',
        changes: [
          { path: 'a.ts', kind: 'update' },
          { path: 'b.ts', kind: 'add' },
        ],
      }),
    ).toEqual(['edit a.ts', 'add b.ts']);
    expect(approvalDetails({ ...base, id: 'c', kind: 'tool_call', title: 'Call gh.issue', tool: 'gh.issue', input: { n: 1 } })).toEqual([
      'gh.issue {"n":1}',
    ]);
  });
});

describe('PendingApprovals', () => {
  it('keeps what is pending, never brings back a decided one, and drops expired ones', () => {
    const pending = new PendingApprovals();
    const a = { ...base, id: 'a', kind: 'command' as const, title: 'Run ls', command: 'ls' };
    const b = { ...a, id: 'b' };
    pending.add(a);
    pending.add(b);
    pending.remove('a');
    pending.replaceAll([a, b]); // a GET /approvals that raced the answer
    const now = Date.parse('2026-01-01T10:00:00.000Z');
    expect(pending.list(now).map((x) => x.id)).toEqual(['b']);
    expect(secondsLeft(b, now)).toBe(300);
    expect(pending.list(Date.parse('2026-01-01T10:06:00.000Z'))).toEqual([]);
  });
});
