import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import type { ChatRequest, PermissionLevel, StreamEvent } from '@toolbridge/core';
import { testGate, waitFor, type ChatControl, type TestGate } from '@toolbridge/test-suite/kit';
import type { MockStep } from './testing/mock-openai-server.js';
import { startRealOpenCode, transcriptOf, type RealOpenCode } from './testing/real-opencode.js';

/**
 * Approvals and interrupts with the real `opencode serve` against the mock: the model asks to run
 * a command or write a file, the test's gate answers, and the file on disk shows what ran. The gate
 * is a small in-test one; core's (events, timeouts, "allow for the session") is tested in core.
 */

const T = { timeoutMs: 240_000 };
/** How long a scripted model call may take to become a question (the 2-core machine is shared). */
const ASK_MS = 180_000;
let oc: RealOpenCode;
let control: ChatControl = {};
/** One working directory (serve bootstraps each new one, seconds under load); each test uses its own file names. */
let cwd: string;

beforeAll(async () => {
  oc = await startRealOpenCode(
    { kind: 'steps', steps: [{ text: 'unused' }] },
    { opencodeModel: 'mock/mock-model', warmIdleMs: 120_000 },
    { control: () => control },
  );
  cwd = await mkdtemp(path.join(oc.home, 'approve-'));
  script({ text: 'ready' });
  await oc.registry.chat('opencode', { messages: [{ role: 'user', content: 'warm up' }], cwd }, T);
}, 300_000);
afterAll(async () => {
  await oc?.close();
}, 60_000);

const script = (...steps: MockStep[]) => oc.script(...steps);

async function run(permissions: PermissionLevel, extra: Partial<ChatRequest> = {}) {
  const events: StreamEvent[] = [];
  for await (const e of oc.registry.stream(
    'opencode',
    { messages: [{ role: 'user', content: 'Do the task' }], cwd, permissions, ...extra },
    T,
  ))
    events.push(e);
  const result = events.flatMap((e) => (e.type === 'result' ? [e.result] : []))[0]!;
  return { events, result };
}

/** What the model was told in its last request (tool results included). */
const lastSent = () => JSON.stringify(oc.mock.requests.filter((r) => !r.title).at(-1)?.body.messages ?? []);

describe('real opencode 1.18.33: approvals on the warm transport', () => {
  let gate: TestGate;
  beforeEach(async () => {
    gate = testGate();
    control = { approvals: gate };
  });

  it('a command is asked before it runs: absent while asked, run after allow, answered "once"', async () => {
    script({ calls: [{ name: 'bash', args: { command: 'echo hi > allowed.txt', description: 'write' } }] }, { text: 'Done.' });
    const chat = run('workspace-write');
    const asked = await gate.nth(0, ASK_MS);
    expect(asked).toMatchObject({ kind: 'command', command: 'echo hi > allowed.txt', title: 'Run echo hi > allowed.txt', cwd });
    expect(existsSync(path.join(cwd, 'allowed.txt'))).toBe(false);
    gate.answer({ allow: true });
    const { result } = await chat;
    expect(readFileSync(path.join(cwd, 'allowed.txt'), 'utf8')).toBe('hi\n');
    expect(result.message.content).toBe('Done.');
    expect(result.metadata).toMatchObject({ transport: 'warm', permissions: { note: expect.stringContaining('asked before it runs') } });
    expect(gate.asked).toHaveLength(1);
  }, 400_000);

  it('an allowed command is asked again the next time ("once", never OpenCode\'s broad "always")', async () => {
    gate = testGate(() => ({ allow: true }));
    control = { approvals: gate };
    script(
      { calls: [{ name: 'bash', args: { command: 'echo one > a.txt', description: 'one' } }] },
      { calls: [{ name: 'bash', args: { command: 'echo two > b.txt', description: 'two' } }] },
      { text: 'Done.' },
    );
    await run('workspace-write');
    expect(gate.asked.map((a) => a.command)).toEqual(['echo one > a.txt', 'echo two > b.txt']);
    expect(existsSync(path.join(cwd, 'b.txt'))).toBe(true);
  }, 400_000);

  it('a denied command does not run, the message reaches the model, and the turn goes on', async () => {
    script({ calls: [{ name: 'bash', args: { command: 'echo hi > denied.txt', description: 'write' } }] }, { text: 'Understood.' });
    const chat = run('workspace-write');
    await gate.nth(0, ASK_MS);
    gate.answer({ allow: false, message: 'NOT-NOW-5521' });
    const { result } = await chat;
    expect(existsSync(path.join(cwd, 'denied.txt'))).toBe(false);
    expect(result.message.content).toBe('Understood.');
    expect(lastSent()).toContain('NOT-NOW-5521');
  }, 400_000);

  it('a file write is asked with its path: absent while asked, written after allow', async () => {
    const file = path.join(cwd, 'notes.txt');
    script({ calls: [{ name: 'write', args: { filePath: file, content: 'hello notes\n' } }] }, { text: 'Written.' });
    const chat = run('workspace-write');
    const asked = await gate.nth(0, ASK_MS);
    expect(asked).toMatchObject({ kind: 'file_change', changes: [{ path: expect.stringContaining('notes.txt'), kind: 'add' }] });
    expect(existsSync(file)).toBe(false);
    gate.answer({ allow: true });
    const { result } = await chat;
    expect(readFileSync(file, 'utf8')).toBe('hello notes\n');
    expect(result.message.content).toBe('Written.');
  }, 400_000);

  it('workspace-write: a write outside cwd is refused by the level without asking', async () => {
    const outside = path.join(oc.home, `outside-${process.pid}.txt`);
    script({ calls: [{ name: 'write', args: { filePath: outside, content: 'no\n' } }] }, { text: 'Refused.' });
    const { result } = await run('workspace-write');
    expect(gate.asked).toEqual([]);
    expect(existsSync(outside)).toBe(false);
    expect(result.message.content).toBe('Refused.');
  }, 400_000);

  it('read-only: nothing is asked, commands and writes stay refused', async () => {
    script({ calls: [{ name: 'bash', args: { command: 'echo hi > read-only.txt', description: 'write' } }] }, { text: 'No.' });
    await run('read-only');
    expect(gate.asked).toEqual([]);
    expect(existsSync(path.join(cwd, 'read-only.txt'))).toBe(false);
  }, 400_000);
});

describe('real opencode 1.18.33: interrupt on the warm transport', () => {
  it('ends the turn with finishReason "interrupted"; the server stays and the next turn continues the same session', async () => {
    const interrupt = new AbortController();
    control = { interrupt: interrupt.signal };
    const server = oc.left();
    const sent = oc.mock.requests.length;
    oc.mock.behaviour = { kind: 'hang' };
    const first = oc.registry.chat('opencode', { messages: [{ role: 'user', content: 'FIRST-QUESTION-8810' }], cwd }, T);
    await waitFor(() => oc.mock.requests.length > sent, 60_000, 'the model request');
    const at = Date.now();
    interrupt.abort();
    const result = await first;
    // Timing is a benchmark's; this only says it did not wait for a deadline.
    expect(Date.now() - at).toBeLessThan(30_000);
    expect(result.metadata).toMatchObject({
      finishReason: 'interrupted',
      transport: 'warm',
      nativeSessionId: expect.stringMatching(/^ses_/),
    });

    control = {};
    const before = oc.mock.requests.length;
    script({ text: 'SECOND-ANSWER-8810' });
    const second = await oc.registry.chat(
      'opencode',
      { messages: [{ role: 'user', content: 'SECOND-QUESTION-8810' }], sessionId: result.sessionId, cwd },
      T,
    );
    expect(second.message.content).toBe('SECOND-ANSWER-8810');
    expect(second.metadata.nativeSessionId).toBe(result.metadata.nativeSessionId);
    const said = transcriptOf(oc.mock.requests.slice(before).find((r) => !r.title)!.body).join('\n');
    expect(said).toContain('FIRST-QUESTION-8810');
    expect(said).toContain('SECOND-QUESTION-8810');
    expect(oc.left()).toEqual(server);
  }, 400_000);
});
