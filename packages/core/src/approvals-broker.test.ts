import { afterEach, describe, expect, it } from '@jest/globals';
import { makeTempDir, scriptedAdapter, type ScriptedAdapter } from '@toolbridge/test-suite/kit';
import type { StreamEvent } from './adapter.js';
import type { ApprovalRequest } from './approvals.js';
import { ApprovalDecidedError, ApprovalNotFoundError, InvalidRequestError } from './errors.js';
import { createRegistry, type ToolRegistry } from './registry.js';
import type { ChatRequest } from './types.js';
import type { Approval } from './wire/approvals.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(tool: ScriptedAdapter) {
  const home = await makeTempDir('toolbridge-approvals-');
  const registry = createRegistry({ adapters: [tool], env: { HOME: home.dir }, sessions: { dir: `${home.dir}/sessions` } });
  cleanups.push(home.cleanup, () => registry.close());
  return registry;
}

const npmTest: ApprovalRequest = { kind: 'command', title: 'Run npm test', command: 'npm test' };
const editA: ApprovalRequest = { kind: 'file_change', title: 'Edit a.txt', changes: [{ path: 'a.txt', kind: 'update' }] };
const ask = (more: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: 'fix the tests' }],
  approvals: 'ask',
  ...more,
});

/** Run a streamed turn, answering each approval with `answer` (through the registry, as the bridge does). */
async function run(
  registry: ToolRegistry,
  request: ChatRequest,
  answer?: (a: Approval) => Parameters<ToolRegistry['approvals']['decide']>[1],
) {
  const events: StreamEvent[] = [];
  for await (const event of registry.stream('t', request)) {
    events.push(event);
    if (event.type === 'approval' && answer) {
      expect(registry.approvals.list().map((a) => a.id)).toContain(event.approval.id);
      registry.approvals.decide(event.approval.id, answer(event.approval));
    }
  }
  const result = events.find((e) => e.type === 'result');
  if (result?.type !== 'result') throw new Error('no result');
  return { events, approvals: events.flatMap((e) => (e.type === 'approval' ? [e.approval] : [])), result: result.result };
}

describe('approvals: "ask"', () => {
  it('shows each asked action as an approval event, waits for the answer, and records the decision', async () => {
    const tool = scriptedAdapter('t', {
      features: { approvals: true },
      script: [{ deltas: ['tests ', 'pass'], asks: [npmTest], askAfterDeltas: 1 }],
    });
    const registry = await setup(tool);
    const before = Date.now();
    const { events, approvals, result } = await run(registry, ask({ approvalTimeoutMs: 60_000 }), () => ({ decision: 'allow' }));
    expect(events.map((e) => e.type)).toEqual(['delta', 'approval', 'delta', 'result']);
    const [approval] = approvals;
    expect(approval).toMatchObject({
      sessionId: result.sessionId,
      toolId: 't',
      kind: 'command',
      title: 'Run npm test',
      command: 'npm test',
      options: ['allow', 'allow_session', 'deny'],
    });
    expect(approval!.id).toMatch(/^apr_[A-Za-z0-9_-]{32}$/);
    const expires = Date.parse(approval!.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 60_000);
    expect(expires).toBeLessThan(Date.now() + 60_000 + 1000);
    expect(tool.calls[0]!.answers).toEqual([{ allow: true }]);
    expect(result.metadata.approvals).toEqual([
      { id: approval!.id, kind: 'command', title: 'Run npm test', decision: 'allow', decidedBy: 'caller' },
    ]);
    expect(registry.approvals.list()).toEqual([]);
    // Answered already: 409; never issued: 404.
    expect(() => registry.approvals.decide(approval!.id, { decision: 'deny' })).toThrow(ApprovalDecidedError);
    expect(() => registry.approvals.decide('apr_nope', { decision: 'deny' })).toThrow(ApprovalNotFoundError);
    expect(() => registry.approvals.decide('apr_nope', { decision: 'maybe' as 'deny' })).toThrow(InvalidRequestError);
  });

  it('tells the agent a denial with the caller’s message; the turn goes on', async () => {
    const tool = scriptedAdapter('t', { features: { approvals: true }, script: [{ deltas: ['ok'], asks: [npmTest] }] });
    const registry = await setup(tool);
    const { result } = await run(registry, ask(), () => ({ decision: 'deny', message: 'not now' }));
    expect(tool.calls[0]!.answers).toEqual([{ allow: false, message: 'not now' }]);
    expect(result.message.content).toBe('ok');
    expect(result.metadata.approvals).toMatchObject([{ decision: 'deny', decidedBy: 'caller' }]);
  });

  it('lets a library caller decide through onApproval (a decision or one with a message)', async () => {
    const tool = scriptedAdapter('t', { features: { approvals: true }, script: [{ deltas: ['ok'], asks: [npmTest, editA] }] });
    const registry = await setup(tool);
    const seen: Approval[] = [];
    const result = await registry.chat('t', ask(), {
      onApproval: async (a) => {
        seen.push(a);
        return a.kind === 'command' ? 'allow' : { decision: 'deny', message: 'leave a.txt alone' };
      },
    });
    expect(seen.map((a) => a.kind)).toEqual(['command', 'file_change']);
    expect(seen[1]!.changes).toEqual([{ path: 'a.txt', kind: 'update' }]);
    expect(tool.calls[0]!.answers).toEqual([{ allow: true }, { allow: false, message: 'leave a.txt alone' }]);
    expect((result.metadata.approvals as unknown[]).length).toBe(2);
  });

  it('denies an approval nobody answers in time; its id is then unknown', async () => {
    const tool = scriptedAdapter('t', { features: { approvals: true }, script: [{ deltas: ['ok'], asks: [npmTest] }] });
    const registry = await setup(tool);
    const { approvals, result } = await run(registry, ask({ approvalTimeoutMs: 1000 }));
    expect(tool.calls[0]!.answers).toEqual([{ allow: false, message: expect.stringMatching(/in time/) }]);
    expect(result.metadata.approvals).toMatchObject([{ decision: 'deny', decidedBy: 'timeout' }]);
    expect(() => registry.approvals.decide(approvals[0]!.id, { decision: 'allow' })).toThrow(ApprovalNotFoundError);
  });

  it('remembers allow_session per command, path and tool, across the turns of that session only', async () => {
    const tool = scriptedAdapter('t', {
      features: { approvals: true },
      script: [
        { deltas: ['1'], asks: [npmTest, editA] },
        {
          deltas: ['2'],
          asks: [npmTest, { ...editA, changes: [{ path: './a.txt', kind: 'update' }] }, { ...npmTest, command: 'rm -rf build' }],
        },
      ],
    });
    const registry = await setup(tool);
    const first = await run(registry, ask(), () => ({ decision: 'allow_session' }));
    expect(first.approvals).toHaveLength(2);
    const second = await run(registry, ask({ sessionId: first.result.sessionId }), () => ({ decision: 'allow' }));
    // Only the new command is asked; the same command and the same path are allowed by the session.
    expect(second.approvals.map((a) => a.command)).toEqual(['rm -rf build']);
    expect(tool.calls[1]!.answers).toEqual([{ allow: true }, { allow: true }, { allow: true }]);
    expect(second.result.metadata.approvals).toMatchObject([
      { kind: 'command', decision: 'allow_session', decidedBy: 'session' },
      { kind: 'file_change', decision: 'allow_session', decidedBy: 'session' },
      { kind: 'command', decision: 'allow', decidedBy: 'caller' },
    ]);
    // Another session is asked again.
    const other = await run(registry, ask(), () => ({ decision: 'deny' }));
    expect(other.approvals.length).toBeGreaterThan(0);
  });

  it('refuses approvals to an agent that cannot ask (400) rather than running its actions unasked; a runtime has none', async () => {
    const tool = scriptedAdapter('t', { script: [{ deltas: ['ok'], asks: [npmTest] }] });
    const registry = await setup(tool);
    const error = await registry.chat('t', ask()).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ httpStatus: 400, publicDetails: { reason: 'unsupported', feature: 'approvals' } });
    expect(tool.calls).toHaveLength(0);
    const runtime = scriptedAdapter('t', { type: 'runtime' });
    const answered = await (await setup(runtime)).chat('t', ask());
    expect(answered.metadata.approvals).toEqual([]);
  });

  it('gives the adapter no gate without approvals "ask"', async () => {
    const tool = scriptedAdapter('t', { features: { approvals: true }, script: [{ deltas: ['ok'], asks: [npmTest] }] });
    const registry = await setup(tool);
    const result = await registry.chat('t', { messages: [{ role: 'user', content: 'hi' }] });
    expect(tool.calls[0]!.ctx.approvals).toBeUndefined();
    expect(result.metadata.approvals).toBeUndefined();
  });

  it('withdraws a pending approval when the turn is aborted', async () => {
    const tool = scriptedAdapter('t', { features: { approvals: true }, script: [{ deltas: ['ok'], asks: [npmTest] }] });
    const registry = await setup(tool);
    const controller = new AbortController();
    const failed = (async () => {
      for await (const event of registry.stream('t', ask(), { signal: controller.signal })) {
        if (event.type === 'approval') controller.abort();
      }
    })().catch((e) => e);
    expect(await failed).toMatchObject({ code: 'aborted' });
    expect(registry.approvals.list()).toEqual([]);
  });
});
