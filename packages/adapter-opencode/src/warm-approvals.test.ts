import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testGate } from '@toolbridge/test-suite/kit';
import { approvalOfPermission, decidePermission, permissionReply } from './warm-approvals.js';

/** OpenCode's `permission.asked` (shapes of 1.18.33) as approvals, and the replies; on disk in real-opencode-approvals.test.ts. */

describe('OpenCode permission questions', () => {
  it('bash is a command, edit a file change (add or update by what is on disk), anything else a tool call', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'toolbridge-oc-approvals-'));
    try {
      await writeFile(path.join(cwd, 'old.txt'), 'x');
      const asked = (permission: string, metadata: Record<string, unknown>) => ({ id: 'per_1', permission, patterns: ['*'], metadata });
      expect(approvalOfPermission(asked('bash', { command: 'npm test' }), cwd)).toEqual({
        kind: 'command',
        title: 'Run npm test',
        command: 'npm test',
        cwd,
      });
      expect(approvalOfPermission(asked('edit', { filepath: path.join(cwd, 'old.txt') }), cwd)).toMatchObject({
        kind: 'file_change',
        changes: [{ path: path.join(cwd, 'old.txt'), kind: 'update' }],
      });
      expect(approvalOfPermission(asked('edit', { filepath: 'new.txt' }), cwd)).toMatchObject({
        title: 'Create new.txt',
        changes: [{ path: 'new.txt', kind: 'add' }],
      });
      expect(approvalOfPermission(asked('github_create_issue', { title: 't' }), cwd)).toEqual({
        kind: 'tool_call',
        title: 'Call github_create_issue',
        tool: 'github_create_issue',
        input: { title: 't' },
      });
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('replies "once" or "reject" with the message, never "always"; the level refuses edits outside cwd unasked', async () => {
    expect(permissionReply({ allow: true })).toEqual({ reply: 'once' });
    expect(permissionReply({ allow: false, message: 'no' })).toEqual({ reply: 'reject', message: 'no' });
    const gate = testGate(() => ({ allow: true }));
    const ctx = { approvals: gate, cwd: '/work' };
    expect(await decidePermission({ permission: 'edit', metadata: { filepath: '/elsewhere/f' } }, ctx, 'workspace-write', [])).toEqual({
      reply: 'reject',
      message: expect.stringContaining('workspace-write'),
    });
    expect(gate.asked).toEqual([]);
    expect(await decidePermission({ permission: 'bash', metadata: { command: 'ls' } }, ctx, 'workspace-write', [])).toEqual({
      reply: 'once',
    });
    expect(gate.asked).toHaveLength(1);
  });
});
