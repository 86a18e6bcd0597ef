import { describe, expect, it } from '@jest/globals';
import { testGate } from '@toolbridge/test-suite/kit';
import { leavesSandbox, ThreadApprovals } from './warm-approvals.js';

/**
 * The decisions of a thread's approvals, from the notifications the real `codex app-server` 0.169
 * sends (shapes as recorded in real-codex-approvals.test.ts's runs). The behaviour on disk is
 * tested there, with the real CLI.
 */

const raw = (callId: string, args: Record<string, unknown>) => ({
  method: 'rawResponseItem/completed',
  params: { item: { type: 'function_call', name: 'exec_command', call_id: callId, arguments: JSON.stringify(args) } },
});
const commandAsk = { itemId: 'call_1', command: "/bin/bash -lc 'echo hi > x'", cwd: '/work' };

describe('Codex thread approvals', () => {
  it('a plain call is asked (the gate decides); one asking to leave the sandbox is declined unasked below full', async () => {
    const gate = testGate(() => ({ allow: true }));
    const approvals = new ThreadApprovals({ approvals: gate, cwd: '/work' }, 'workspace-write', []);
    approvals.observe(raw('call_1', { cmd: 'echo hi > x' }));
    approvals.observe(raw('call_2', { cmd: 'echo hi > /x', sandbox_permissions: 'require_escalated' }));
    expect(await approvals.decide('item/commandExecution/requestApproval', commandAsk)).toEqual({ decision: 'accept' });
    expect(await approvals.decide('item/commandExecution/requestApproval', { ...commandAsk, itemId: 'call_2' })).toEqual({
      decision: 'decline',
    });
    // A call never seen (its arguments unknown) is declined too: it might leave the sandbox.
    expect(await approvals.decide('item/commandExecution/requestApproval', { ...commandAsk, itemId: 'call_9' })).toEqual({
      decision: 'decline',
    });
    expect(gate.asked).toEqual([{ kind: 'command', title: "Run /bin/bash -lc 'echo hi > x'", command: commandAsk.command, cwd: '/work' }]);
  });

  it('at full an escalated call is asked (unsandboxed is what full grants)', async () => {
    const gate = testGate(() => ({ allow: false }));
    const approvals = new ThreadApprovals({ approvals: gate, cwd: '/work' }, 'full', []);
    approvals.observe(raw('call_1', { cmd: 'x', sandbox_permissions: 'require_escalated' }));
    expect(await approvals.decide('item/commandExecution/requestApproval', commandAsk)).toEqual({ decision: 'decline' });
    expect(gate.asked).toHaveLength(1);
  });

  it('a file change takes its paths from the item started before it; outside cwd is refused unasked; no paths, declined', async () => {
    const gate = testGate(() => ({ allow: true }));
    const approvals = new ThreadApprovals({ approvals: gate, cwd: '/work' }, 'workspace-write', ['/extra']);
    const started = (id: string, path: string, type: string) => ({
      method: 'item/started',
      params: { item: { type: 'fileChange', id, changes: [{ path, kind: { type }, diff: '' }] } },
    });
    approvals.observe(started('p1', '/work/a.txt', 'add'));
    approvals.observe(started('p2', '/elsewhere/b.txt', 'update'));
    approvals.observe(started('p3', '/extra/c.txt', 'delete'));
    const ask = (itemId: string) => approvals.decide('item/fileChange/requestApproval', { itemId });
    expect(await ask('p1')).toEqual({ decision: 'accept' });
    expect(await ask('p2')).toEqual({ decision: 'decline' });
    expect(await ask('p3')).toEqual({ decision: 'accept' });
    expect(await ask('p4')).toEqual({ decision: 'decline' });
    expect(gate.asked.map((a) => [a.title, a.changes])).toEqual([
      ['Create /work/a.txt', [{ path: '/work/a.txt', kind: 'add' }]],
      ['Delete /extra/c.txt', [{ path: '/extra/c.txt', kind: 'delete' }]],
    ]);
  });

  it('leavesSandbox: only use_default (or none) stays in', () => {
    const call = (args: unknown) => ({ type: 'function_call', arguments: typeof args === 'string' ? args : JSON.stringify(args) });
    expect(leavesSandbox(call({ cmd: 'ls' }))).toBe(false);
    expect(leavesSandbox(call({ cmd: 'ls', sandbox_permissions: 'use_default' }))).toBe(false);
    expect(leavesSandbox(call({ cmd: 'ls', sandbox_permissions: 'require_escalated' }))).toBe(true);
    expect(leavesSandbox(call({ cmd: 'ls', sandbox_permissions: 'with_additional_permissions', additional_permissions: {} }))).toBe(true);
    expect(leavesSandbox(call({ command: ['ls'], with_escalated_permissions: true }))).toBe(true);
    expect(leavesSandbox(call('not json'))).toBe(true);
    expect(leavesSandbox({ type: 'local_shell_call', action: {} })).toBe(false);
  });
});
