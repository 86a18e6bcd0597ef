import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Activity, ApprovalRequest, ChatContext, ChatResult, PermissionLevel, StreamEvent, ToolAdapter } from '@toolbridge/core';
import { transcriptOf } from '@toolbridge/test-suite/kit';
import { createPiAdapter } from './adapter.js';
import { SLOW, startRealPi, type RealPi } from './testing/real-pi.js';

/** The real `pi --mode rpc` (warm) against the mock: sessions, the permission extension, approvals, interrupt. */

const say = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], ...extra });
const T = { timeoutMs: 90_000 };

let pi: RealPi;
let adapter: ToolAdapter;
beforeAll(async () => {
  pi = await startRealPi({ kind: 'steps', steps: [{ text: 'unused' }] }, { piModel: 'mock/mock-model' });
  adapter = createPiAdapter({ versionTimeoutMs: SLOW });
});
afterAll(async () => {
  await adapter?.dispose?.();
  await pi?.close();
});

function answer(text: string): number {
  const at = pi.mock.requests.length;
  pi.mock.behaviour = { kind: 'steps', steps: [{ text }] };
  return at;
}

/** One turn on the adapter directly, with an approval gate and an interrupt of the test's own. */
async function turn(
  prompt: string,
  cwd: string,
  level: PermissionLevel,
  extra: { ask?: (r: ApprovalRequest) => boolean; interrupt?: AbortSignal; resume?: { nativeSessionId: string; fork: boolean } } = {},
): Promise<{ result: ChatResult; activity: Activity[]; asked: ApprovalRequest[] }> {
  const asked: ApprovalRequest[] = [];
  const ctx: ChatContext = {
    config: { piModel: 'mock/mock-model' },
    env: pi.env,
    signal: AbortSignal.timeout(90_000),
    cwd,
    scratchDir: async () => mkdtemp(path.join(pi.home, 'scratch-')),
    ...(extra.ask
      ? {
          approvals: {
            ask: async (r: ApprovalRequest) => {
              asked.push(r);
              return { allow: extra.ask!(r), message: 'no thanks' };
            },
          },
        }
      : {}),
    ...(extra.interrupt ? { interrupt: extra.interrupt } : {}),
  } as ChatContext;
  const activity: Activity[] = [];
  let result: ChatResult | undefined;
  const request = {
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: prompt }] }],
    additionalDirs: [],
    permissions: level,
    ...(extra.resume ? { resume: extra.resume } : {}),
  };
  for await (const e of adapter.stream(request, ctx) as AsyncIterable<StreamEvent>) {
    if (e.type === 'activity') activity.push(e.activity);
    if (e.type === 'result') result = e.result;
  }
  return { result: result!, activity, asked };
}

/** The mock asks for one tool call, then answers `text`. */
function toolThen(name: string, args: Record<string, unknown>, text = 'DONE'): number {
  const at = pi.mock.requests.length;
  pi.mock.behaviour = { kind: 'steps', steps: [{ calls: [{ name, args }] }, { text }] };
  return at;
}

/** What the model was told about the tool call (the tool result message of the second request). */
const toolResult = (at: number) =>
  transcriptOf(pi.mock.requests[at + 1]!.body)
    .filter((m) => m.startsWith('tool:'))
    .join('\n');

describe('real pi 0.73.1 (warm rpc)', () => {
  it('chats warm through the registry; sessions continue and fork natively', async () => {
    const { registry, mock } = pi;
    answer('FIRST-ANSWER-77');
    const first = await registry.chat('pi', say('FIRST-QUESTION-77'), T);
    expect(first.message.content).toBe('FIRST-ANSWER-77');
    expect(first.metadata).toMatchObject({ transport: 'warm', nativeSessionId: expect.any(String) });

    let at = answer('SECOND-ANSWER-77');
    const second = await registry.chat('pi', say('SECOND-QUESTION-77', { sessionId: first.sessionId }), T);
    expect(second.metadata).toMatchObject({ transport: 'warm', nativeSessionId: first.metadata.nativeSessionId });
    expect(transcriptOf(mock.requests[at]!.body).filter((m) => m.includes('-77'))).toEqual([
      'user: FIRST-QUESTION-77',
      'assistant: FIRST-ANSWER-77',
      'user: SECOND-QUESTION-77',
    ]);

    at = answer('FORK-ANSWER-77');
    const fork = await registry.chat('pi', say('FORK-QUESTION-77', { sessionId: first.sessionId, fork: true }), T);
    expect(fork.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    expect(transcriptOf(mock.requests[at]!.body).filter((m) => m.includes('-77'))).toHaveLength(5);

    at = answer('THIRD-ANSWER-77');
    await registry.chat('pi', say('THIRD-QUESTION-77', { sessionId: first.sessionId }), T);
    expect(transcriptOf(mock.requests[at]!.body).filter((m) => m.includes('FORK'))).toEqual([]);
  }, 300_000);

  it('read-only: a write is refused by the extension before it runs; the model is told why', async () => {
    const cwd = await mkdtemp(path.join(pi.home, 'ro-'));
    const at = toolThen('write', { path: 'out.txt', content: 'x' });
    const { result, activity } = await turn('write a file', cwd, 'read-only');
    expect(result.message.content).toBe('DONE');
    expect(result.metadata).toMatchObject({ transport: 'warm', permissions: { applied: 'read-only' } });
    expect(existsSync(path.join(cwd, 'out.txt'))).toBe(false);
    expect(activity.at(-1)).toMatchObject({ kind: 'file_change', status: 'failed' });
    expect(toolResult(at)).toContain('Refused by Toolbridge');
  }, 120_000);

  it('workspace-write: writes inside cwd run, outside are refused, bash is refused without approvals', async () => {
    const cwd = await mkdtemp(path.join(pi.home, 'ww-'));
    const outside = await mkdtemp(path.join(pi.home, 'outside-'));
    toolThen('write', { path: 'in.txt', content: 'inside' });
    await turn('write inside', cwd, 'workspace-write');
    expect(existsSync(path.join(cwd, 'in.txt'))).toBe(true);

    let at = toolThen('write', { path: path.join(outside, 'out.txt'), content: 'x' });
    await turn('write outside', cwd, 'workspace-write');
    expect(existsSync(path.join(outside, 'out.txt'))).toBe(false);
    expect(toolResult(at)).toContain('only inside the working directory');

    at = toolThen('bash', { command: 'touch made-by-bash.txt' });
    const { activity } = await turn('run a command', cwd, 'workspace-write');
    expect(existsSync(path.join(cwd, 'made-by-bash.txt'))).toBe(false);
    expect(activity.at(-1)).toMatchObject({ kind: 'command', command: 'touch made-by-bash.txt', status: 'failed' });
    expect(toolResult(at)).toContain('commands need the full permission level or approvals');
    await rm(outside, { recursive: true, force: true });
  }, 200_000);

  it('approvals: the caller is asked before a command runs; deny stops it, allow runs it', async () => {
    const cwd = await mkdtemp(path.join(pi.home, 'ask-'));
    let at = toolThen('bash', { command: 'touch denied.txt' });
    const denied = await turn('run it', cwd, 'full', { ask: () => false });
    expect(denied.asked).toEqual([expect.objectContaining({ kind: 'command', command: 'touch denied.txt' })]);
    expect(existsSync(path.join(cwd, 'denied.txt'))).toBe(false);
    expect(toolResult(at)).toContain('no thanks');

    at = toolThen('bash', { command: 'touch allowed.txt' });
    const allowed = await turn('run it', cwd, 'full', { ask: () => true });
    expect(allowed.asked).toHaveLength(1);
    expect(toolResult(at)).not.toContain('Refused');
    expect(existsSync(path.join(cwd, 'allowed.txt'))).toBe(true);
    expect(allowed.activity.at(-1)).toMatchObject({ kind: 'command', status: 'completed' });
  }, 200_000);

  it('interrupt: abort ends the turn as "interrupted", the session goes on', async () => {
    const cwd = await mkdtemp(path.join(pi.home, 'int-'));
    const first = await (answer('BEFORE-88'), turn('BEFORE-Q-88', cwd, 'read-only'));
    const at = pi.mock.requests.length;
    pi.mock.behaviour = { kind: 'hang' };
    const interrupt = new AbortController();
    const waiting = turn('HUNG-Q-88', cwd, 'read-only', {
      interrupt: interrupt.signal,
      resume: { nativeSessionId: String(first.result.metadata.nativeSessionId), fork: false },
    });
    while (pi.mock.requests.length === at) await new Promise((r) => setTimeout(r, 50));
    interrupt.abort();
    const hung = await waiting;
    expect(hung.result.metadata).toMatchObject({ finishReason: 'interrupted', nativeSessionId: first.result.metadata.nativeSessionId });

    const next = answer('AFTER-88');
    const after = await turn('AFTER-Q-88', cwd, 'read-only', {
      resume: { nativeSessionId: String(first.result.metadata.nativeSessionId), fork: false },
    });
    expect(after.result.message.content).toBe('AFTER-88');
    expect(transcriptOf(pi.mock.requests[next]!.body).filter((m) => m.includes('-88'))[0]).toBe('user: BEFORE-Q-88');
  }, 200_000);
});
