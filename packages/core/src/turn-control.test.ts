import { afterEach, describe, expect, it } from '@jest/globals';
import { makeTempDir, scriptedAdapter, type ScriptStep, type ScriptedAdapter } from '@toolbridge/test-suite/kit';
import type { StreamEvent, ToolAdapter } from './adapter.js';
import { SessionIdleError, SessionNotFoundError } from './errors.js';
import { createRegistry, type ToolRegistry } from './registry.js';
import { textOf } from './request.js';
import type { ChatResult } from './types.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(tool: ToolAdapter) {
  const home = await makeTempDir('toolbridge-interrupt-');
  const registry = createRegistry({ adapters: [tool], env: { HOME: home.dir }, sessions: { dir: `${home.dir}/sessions` } });
  cleanups.push(home.cleanup, () => registry.close());
  return registry;
}

const hi = { messages: [{ role: 'user' as const, content: 'hi' }] };

/** A first turn, then a second one that streams "so far" and hangs until interrupted (after its last delta). */
async function interruptSecondTurn(registry: ToolRegistry, tool: ScriptedAdapter) {
  const first = await registry.chat('t', hi);
  const sessionId = first.sessionId!;
  const events: StreamEvent[] = [];
  let interruptedAt = 0;
  for await (const event of registry.stream('t', { ...hi, sessionId })) {
    events.push(event);
    if (event.type === 'delta' && event.text === 'far') {
      interruptedAt = performance.now();
      await registry.interrupt(sessionId);
    }
  }
  const elapsed = performance.now() - interruptedAt;
  const result = (events.at(-1) as { type: 'result'; result: ChatResult }).result;
  return { sessionId, result, elapsed, tool };
}

const hangs: ScriptStep[] = [{ deltas: ['one'] }, { deltas: ['so ', 'far'], hang: true }, { deltas: ['again'] }];

describe('interrupt(sessionId)', () => {
  it('stops a tool without a native interrupt: the text so far, finishReason "interrupted", the session goes on', async () => {
    const tool = scriptedAdapter('t', { script: hangs });
    const registry = await setup(tool);
    const { sessionId, result, elapsed } = await interruptSecondTurn(registry, tool);
    expect(elapsed).toBeLessThan(2000);
    expect(result.message.content).toBe('so far');
    expect(result.metadata.finishReason).toBe('interrupted');
    expect(result.sessionId).toBe(sessionId);
    expect(tool.aborts).toHaveLength(1); // its stream was stopped
    const detail = await registry.sessions.get(sessionId);
    expect(detail.turns).toBe(2);
    const next = await registry.chat('t', { messages: [{ role: 'user', content: 'go on' }], sessionId });
    expect(next.message.content).toBe('again');
    // The tool is sent the conversation so far, the interrupted answer included.
    expect(tool.requests[2]!.messages.map(textOf)).toEqual(['hi', 'one', 'hi', 'so far', 'go on']);
  });

  it('lets a tool with a native interrupt end its turn itself, keeping it alive', async () => {
    const tool = scriptedAdapter('t', { script: hangs, features: { interrupt: true } });
    const registry = await setup(tool);
    const { result, elapsed } = await interruptSecondTurn(registry, tool);
    expect(elapsed).toBeLessThan(2000);
    expect(result.message.content).toBe('so far');
    expect(result.metadata.finishReason).toBe('interrupted');
    expect(tool.aborts).toHaveLength(0); // ended by the tool, not stopped by core
  });

  it('stops a tool that claims a native interrupt but does not end within the grace', async () => {
    const inner = scriptedAdapter('t', { script: hangs });
    const tool: ToolAdapter = { ...inner, features: { interrupt: true } };
    const registry = await setup(tool);
    const { result, elapsed } = await interruptSecondTurn(registry, inner);
    expect(elapsed).toBeGreaterThan(1000);
    expect(elapsed).toBeLessThan(2500);
    expect(result.metadata.finishReason).toBe('interrupted');
    expect(result.message.content).toBe('so far');
    expect(inner.aborts).toHaveLength(1);
  });

  it('denies a pending approval when the turn is interrupted', async () => {
    const tool = scriptedAdapter('t', {
      script: [{ deltas: ['one'] }, { deltas: ['so far'], asks: [{ kind: 'command', title: 'Run ls', command: 'ls' }], askAfterDeltas: 1 }],
      features: { interrupt: true, approvals: true },
    });
    const registry = await setup(tool);
    const first = await registry.chat('t', hi);
    let result: ChatResult | undefined;
    for await (const event of registry.stream('t', { ...hi, sessionId: first.sessionId, approvals: 'ask' })) {
      if (event.type === 'approval') await registry.interrupt(first.sessionId!);
      if (event.type === 'result') result = event.result;
    }
    expect(tool.calls[1]!.answers).toEqual([{ allow: false, message: expect.stringMatching(/interrupted/) }]);
    expect(result!.metadata).toMatchObject({ finishReason: 'interrupted', approvals: [{ decision: 'deny', decidedBy: 'caller' }] });
    expect(registry.approvals.list()).toEqual([]);
  });

  it('refuses an unknown session (404) and a session with no turn running (409 session_idle)', async () => {
    const registry = await setup(scriptedAdapter('t'));
    await expect(registry.interrupt('tbs_doesnotexist')).rejects.toBeInstanceOf(SessionNotFoundError);
    const { sessionId } = await registry.chat('t', hi);
    const idle = await registry.interrupt(sessionId!).catch((e) => e);
    expect(idle).toBeInstanceOf(SessionIdleError);
    expect(idle).toMatchObject({ code: 'session_idle', httpStatus: 409 });
  });
});
