import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Approval, ApprovalReply, ChatRequest, ChatResult, StreamEvent } from '@toolbridge/core';
import type { ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, processesWithEnv } from '@toolbridge/test-suite/kit';
import { agentScript, startMockAnthropic, userTexts, type MockAnthropicServer } from './testing/index.js';
import { realClaudeRegistry } from './testing/real.js';

/** Approvals (`can_use_tool` over the control protocol) and interrupts with the real `claude` 2.1.330 against the mock. */
describe.each([
  ['warm', {}],
  ['spawn', { claudeCodeWarm: false }],
] as const)('real claude: approvals and interrupts (%s)', (transport, config) => {
  let server: MockAnthropicServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  let registry: ToolRegistry;
  let home: string;
  let n = 0;

  beforeAll(async () => {
    server = await startMockAnthropic();
    tmp = await makeTempDir('tb-claude-approvals-');
    ({ registry, home } = await realClaudeRegistry(server.url, path.join(tmp.dir, 'home'), { config }));
  });
  afterAll(async () => {
    await registry?.close();
    await server?.close();
    await tmp?.cleanup();
  });

  const project = async () => {
    const cwd = path.join(tmp.dir, `task-${++n}`);
    await mkdir(cwd, { recursive: true });
    return cwd;
  };
  /** One streamed turn, each approval answered by `decide` (after `check` looked at the world as it was when asked). */
  const run = async (request: ChatRequest, decide: (a: Approval) => ApprovalReply, check: (a: Approval) => void = () => undefined) => {
    const approvals: Approval[] = [];
    let result: ChatResult | undefined;
    for await (const e of registry.stream('claude-code', request, { timeoutMs: 120_000 })) {
      if (e.type === 'approval') {
        approvals.push(e.approval);
        check(e.approval);
        registry.approvals.decide(e.approval.id, decide(e.approval));
      }
      if (e.type === 'result') result = e.result;
    }
    return { approvals, result: result! };
  };

  it('asks before a command and a file change; a denial reaches the model, an allowed write happens', async () => {
    const cwd = await project();
    server.behavior = {
      mode: 'script',
      script: agentScript([
        { name: 'Bash', input: { command: 'echo hi > out.txt', description: 'Write hi' } },
        { name: 'Write', input: { file_path: path.join(cwd, 'written.txt'), content: 'inside\n' } },
        { name: 'Read', input: { file_path: path.join(cwd, 'written.txt') } },
      ]),
    };
    const { approvals, result } = await run(
      { messages: [{ role: 'user', content: 'Do the file task.' }], cwd, permissions: 'workspace-write', approvals: 'ask' },
      (a) => (a.kind === 'command' ? { decision: 'deny', message: 'No shell today.' } : { decision: 'allow' }),
      // Asked before the action: what it would create is not there yet.
      (a) => expect(existsSync(path.join(cwd, a.kind === 'command' ? 'out.txt' : 'written.txt'))).toBe(false),
    );
    expect(approvals.map((a) => [a.kind, a.title])).toEqual([
      ['command', 'Run echo hi > out.txt'],
      ['file_change', `Create ${path.join(cwd, 'written.txt')}`],
    ]);
    expect(approvals[0]).toMatchObject({
      command: 'echo hi > out.txt',
      cwd,
      toolId: 'claude-code',
      sessionId: expect.stringMatching(/^tbs_/),
    });
    expect(approvals[1]!.changes).toEqual([{ path: path.join(cwd, 'written.txt'), kind: 'add' }]);
    expect(existsSync(path.join(cwd, 'out.txt'))).toBe(false);
    expect(await readFile(path.join(cwd, 'written.txt'), 'utf8')).toBe('inside\n');
    // The read was not asked; the model saw the denial's message.
    expect(userTexts(server.messageRequests().at(-1)!.body).join('\n')).toContain('No shell today.');
    expect(result.metadata).toMatchObject({
      transport,
      approvals: [
        { kind: 'command', decision: 'deny', decidedBy: 'caller' },
        { kind: 'file_change', decision: 'allow', decidedBy: 'caller' },
      ],
    });
  }, 240_000);

  it('refuses a change outside the working directory without asking (the level is the ceiling)', async () => {
    const cwd = await project();
    const outside = path.join(tmp.dir, `outside-${n}.txt`);
    server.behavior = { mode: 'script', script: agentScript([{ name: 'Write', input: { file_path: outside, content: 'x\n' } }]) };
    const { approvals } = await run(
      { messages: [{ role: 'user', content: 'Write outside.' }], cwd, permissions: 'workspace-write', approvals: 'ask' },
      () => ({ decision: 'allow' }),
    );
    expect(approvals).toEqual([]);
    expect(existsSync(outside)).toBe(false);
    expect(userTexts(server.messageRequests().at(-1)!.body).join('\n')).toContain('Refused by Toolbridge');
  }, 240_000);

  it('remembers allow_session for a writing command that Claude Code asks about every time', async () => {
    const cwd = await project();
    const append = { name: 'Bash', input: { command: 'echo a >> log.txt', description: 'Append' } };
    server.behavior = { mode: 'script', script: agentScript([append, append]) };
    const first = await run(
      { messages: [{ role: 'user', content: 'Append twice.' }], cwd, permissions: 'workspace-write', approvals: 'ask' },
      () => ({ decision: 'allow_session' }),
    );
    expect(first.approvals).toHaveLength(1);
    expect(await readFile(path.join(cwd, 'log.txt'), 'utf8')).toBe('a\na\n');
    expect(first.result.metadata.approvals).toMatchObject([
      { decision: 'allow_session', decidedBy: 'caller' },
      { decision: 'allow_session', decidedBy: 'session' },
    ]);
    server.behavior = { mode: 'script', script: agentScript([append]) };
    const second = await run(
      {
        messages: [{ role: 'user', content: 'Once more.' }],
        cwd,
        sessionId: first.result.sessionId,
        approvals: 'ask',
        permissions: 'workspace-write',
      },
      () => ({ decision: 'deny' }),
    );
    expect(second.approvals).toEqual([]);
    expect(await readFile(path.join(cwd, 'log.txt'), 'utf8')).toBe('a\na\na\n');
  }, 240_000);

  it('an interrupt ends the turn within 2 s with the text so far; the session (and a warm process) goes on', async () => {
    server.behavior = { mode: 'ok', text: 'first answer' };
    const first = await registry.chat('claude-code', { messages: [{ role: 'user', content: 'Remember kiwi.' }] }, { timeoutMs: 120_000 });
    const pids = processesWithEnv(`HOME=${home}`);
    server.behavior = {
      mode: 'script',
      script: () => ({ blocks: [{ type: 'text', text: 'so far and more', pieces: ['so far', ' and more'] }], pieceDelayMs: 30_000 }),
    };
    const events: StreamEvent[] = [];
    let asked = 0;
    for await (const e of registry.stream('claude-code', {
      messages: [{ role: 'user', content: 'Talk slowly.' }],
      sessionId: first.sessionId,
    })) {
      events.push(e);
      if (e.type === 'delta' && asked === 0) {
        asked = performance.now();
        await registry.interrupt(first.sessionId!);
      }
    }
    const took = performance.now() - asked;
    const result = (events.at(-1) as { type: 'result'; result: ChatResult }).result;
    expect(took).toBeLessThan(2000);
    expect(result.message.content).toBe('so far');
    expect(result.metadata).toMatchObject({ finishReason: 'interrupted', transport });
    server.behavior = { mode: 'ok', text: 'next answer' };
    const next = await registry.chat(
      'claude-code',
      { messages: [{ role: 'user', content: 'Which fruit?' }], sessionId: first.sessionId },
      { timeoutMs: 120_000 },
    );
    expect(next.message.content).toBe('next answer');
    expect(userTexts(server.messageRequests().at(-1)!.body).join('\n')).toContain('Remember kiwi.');
    if (transport === 'warm') expect(processesWithEnv(`HOME=${home}`).filter((p) => pids.includes(p)).length).toBeGreaterThan(0);
  }, 240_000);
});
