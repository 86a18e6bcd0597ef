import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChatRequest, PermissionLevel, StreamEvent } from '@toolbridge/core';
import { makeTempDir, testGate, waitFor, type ChatControl, type TestGate } from '@toolbridge/test-suite/kit';
import type { MockBehaviour, ResponsesBody } from './testing/mock-responses-server.js';
import { startRealCodex, transcriptOf, type RealCodex } from './testing/real-codex.js';

/**
 * Approvals and interrupts with the real `codex app-server` (and its real sandbox) against the
 * mock: the model asks to run a command or write a file, the test's gate answers, and the file on
 * disk shows what ran. The gate is a small in-test one; core's (events, timeouts, "allow for the
 * session") is tested in core.
 */

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const shell = (cmd: string, extra: Record<string, unknown> = {}): MockBehaviour => ({
  kind: 'calls',
  calls: [{ type: 'function_call', name: 'exec_command', arguments: { cmd, ...extra } }],
});
const patch = (file: string): MockBehaviour => ({
  kind: 'calls',
  calls: [{ type: 'custom_tool_call', name: 'apply_patch', input: `*** Begin Patch\n*** Add File: ${file}\n+patched\n*** End Patch\n` }],
});
const done: MockBehaviour = { kind: 'reply', text: 'All done.' };

async function workDir(): Promise<string> {
  const t = await makeTempDir('toolbridge-codex-approve-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** What the model was told about its tool calls (the outputs in its last request). */
function toolOutputs(body: ResponsesBody | undefined): string {
  return JSON.stringify((body?.input ?? []).filter((i) => typeof i.type === 'string' && i.type.endsWith('_output')));
}

let control: ChatControl = {};
let codex: RealCodex;
beforeAll(async () => {
  codex = await startRealCodex({ control: () => control });
});
afterAll(async () => {
  await codex?.close();
});

async function run(cwd: string, permissions: PermissionLevel, extra: Partial<ChatRequest> = {}) {
  const events: StreamEvent[] = [];
  for await (const e of codex.registry.stream(
    'codex',
    { messages: [{ role: 'user', content: 'Do the task' }], cwd, permissions, ...extra },
    { timeoutMs: 90_000 },
  ))
    events.push(e);
  const result = events.flatMap((e) => (e.type === 'result' ? [e.result] : []))[0]!;
  return { events, result, activity: events.flatMap((e) => (e.type === 'activity' ? [e.activity] : [])) };
}

describe('real codex 0.169.0: approvals on the warm transport', () => {
  let gate: TestGate;
  beforeEach(() => {
    gate = testGate();
    control = { approvals: gate };
  });

  it('a command is asked before it runs: absent while asked, run after allow', async () => {
    const cwd = await workDir();
    codex.mock.queue(shell('echo hi > in.txt'), done);
    const chat = run(cwd, 'full');
    const asked = await gate.nth(0);
    expect(asked).toMatchObject({ kind: 'command', command: expect.stringContaining('echo hi > in.txt'), cwd });
    expect(asked.title).toContain('echo hi > in.txt');
    expect(existsSync(path.join(cwd, 'in.txt'))).toBe(false);
    gate.answer({ allow: true });
    const { result } = await chat;
    expect(readFileSync(path.join(cwd, 'in.txt'), 'utf8')).toBe('hi\n');
    expect(result.message.content).toBe('All done.');
    expect(result.metadata.transport).toBe('warm');
    expect(gate.asked).toHaveLength(1);
  }, 120_000);

  it('a denied command does not run, the model is told, and the turn goes on', async () => {
    const cwd = await workDir();
    codex.mock.queue(shell('echo hi > in.txt'), done);
    const chat = run(cwd, 'full');
    await gate.nth(0);
    gate.answer({ allow: false, message: 'not now' });
    const { result, activity } = await chat;
    expect(existsSync(path.join(cwd, 'in.txt'))).toBe(false);
    expect(result.message.content).toBe('All done.');
    expect(toolOutputs(codex.mock.modelRequests().at(-1))).toContain('rejected');
    expect(activity.filter((a) => a.kind === 'command').at(-1)).toMatchObject({ status: 'failed' });
  }, 120_000);

  it('workspace-write: approvals are refused before anything runs (Codex would run an approved command outside its sandbox)', async () => {
    const cwd = await workDir();
    const sent = codex.mock.modelRequests().length;
    await expect(run(cwd, 'workspace-write')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('outside its sandbox'),
      publicDetails: { reason: 'unsupported', feature: 'approvals' },
    });
    expect(gate.asked).toEqual([]);
    expect(codex.mock.modelRequests()).toHaveLength(sent);
  }, 120_000);

  it("a session's next turn (a resumed thread) asks the same way", async () => {
    const cwd = await workDir();
    gate = testGate(() => ({ allow: true }));
    control = { approvals: gate };
    codex.mock.queue(shell('echo one > one.txt'), done);
    const first = await run(cwd, 'full');
    codex.mock.queue(shell('echo two > two.txt'), done);
    await run(cwd, 'full', { sessionId: first.result.sessionId });
    expect(gate.asked.map((a) => a.command)).toEqual([expect.stringContaining('one.txt'), expect.stringContaining('two.txt')]);
    expect(readFileSync(path.join(cwd, 'two.txt'), 'utf8')).toBe('two\n');
  }, 240_000);

  it('read-only: commands are refused by the level without asking', async () => {
    const cwd = await workDir();
    codex.mock.queue(shell('echo hi > in.txt'), done);
    const { result } = await run(cwd, 'read-only');
    expect(gate.asked).toEqual([]);
    expect(existsSync(path.join(cwd, 'in.txt'))).toBe(false);
    expect(result.message.content).toBe('All done.');
  }, 120_000);

  it('a file change is asked with its path: absent while asked, written after allow', async () => {
    const cwd = await workDir();
    codex.mock.queue(patch('patched.txt'), done);
    const chat = run(cwd, 'full', { model: 'gpt-5.5' });
    const asked = await gate.nth(0);
    expect(asked).toMatchObject({ kind: 'file_change', changes: [{ path: path.join(cwd, 'patched.txt'), kind: 'add' }] });
    expect(existsSync(path.join(cwd, 'patched.txt'))).toBe(false);
    gate.answer({ allow: true });
    const { result } = await chat;
    expect(readFileSync(path.join(cwd, 'patched.txt'), 'utf8')).toBe('patched\n');
    expect(result.message.content).toBe('All done.');
  }, 120_000);

  it('a denied file change is not written and the model is told', async () => {
    const cwd = await workDir();
    codex.mock.queue(patch('patched.txt'), done);
    const chat = run(cwd, 'full', { model: 'gpt-5.5' });
    await gate.nth(0);
    gate.answer({ allow: false });
    const { result } = await chat;
    expect(existsSync(path.join(cwd, 'patched.txt'))).toBe(false);
    expect(result.message.content).toBe('All done.');
    expect(toolOutputs(codex.mock.modelRequests().at(-1))).toContain('rejected');
  }, 120_000);
});

describe('real codex 0.169.0: interrupt on the warm transport', () => {
  it('ends the turn with the text so far and finishReason "interrupted"; the server stays and the next turn continues the thread', async () => {
    const interrupt = new AbortController();
    control = { interrupt: interrupt.signal };
    const sent = codex.mock.modelRequests().length;
    codex.mock.queue({ kind: 'hang' });
    const first = codex.registry.chat('codex', { messages: [{ role: 'user', content: 'FIRST-QUESTION-3301' }] }, { timeoutMs: 90_000 });
    await waitFor(() => codex.mock.modelRequests().length > sent, 60_000, 'the model request');
    const server = codex.left();
    const at = Date.now();
    interrupt.abort();
    const result = await first;
    // Timing is a benchmark's (benchmarks/approvals.bench.mjs); this only says it did not wait for a deadline.
    expect(Date.now() - at).toBeLessThan(30_000);
    expect(result.metadata).toMatchObject({ finishReason: 'interrupted', transport: 'warm', nativeSessionId: expect.any(String) });
    expect(result.message.content).toBe('');

    control = {};
    codex.mock.queue({ kind: 'reply', text: 'SECOND-ANSWER-3301' });
    const before = codex.mock.modelRequests().length;
    const second = await codex.registry.chat(
      'codex',
      { messages: [{ role: 'user', content: 'SECOND-QUESTION-3301' }], sessionId: result.sessionId },
      { timeoutMs: 90_000 },
    );
    expect(second.message.content).toBe('SECOND-ANSWER-3301');
    expect(second.metadata.nativeSessionId).toBe(result.metadata.nativeSessionId);
    const said = transcriptOf(codex.mock.modelRequests()[before]!);
    expect(said).toContain('user: FIRST-QUESTION-3301');
    expect(said).toContain('user: SECOND-QUESTION-3301');
    // The same app-server answered.
    expect(codex.left()).toEqual(server);
  }, 180_000);
});
