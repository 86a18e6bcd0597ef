import { afterEach, describe, expect, it } from '@jest/globals';
import { makeTempDir, scriptedAdapter } from '@toolbridge/test-suite/kit';
import { createToolbridge, SessionIdleError, type Approval, type Toolbridge } from './index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function toolbridge(...adapters: ReturnType<typeof scriptedAdapter>[]): Promise<Toolbridge> {
  const home = await makeTempDir('toolbridge-lib-approvals-');
  const tb = createToolbridge({ adapters, env: { HOME: home.dir }, sessions: { dir: `${home.dir}/sessions` } });
  cleanups.push(home.cleanup, () => tb.close());
  return tb;
}

const rm = { kind: 'command' as const, title: 'Run rm -rf build', command: 'rm -rf build' };
const ask = { messages: [{ role: 'user' as const, content: 'clean up' }], approvals: 'ask' as const };

describe('approvals and interrupts through the library', () => {
  it('a streamed fallback chat skips an agent that cannot ask, yields the approval, and onApproval decides it', async () => {
    const mute = scriptedAdapter('mute');
    const asker = scriptedAdapter('asker', { features: { approvals: true }, script: [{ deltas: ['cleaned'], asks: [rm] }] });
    const tb = await toolbridge(mute, asker);
    const seen: Approval[] = [];
    const events: string[] = [];
    let done: unknown;
    for await (const e of tb.streamChat(ask, {
      providers: ['mute', 'asker'],
      onApproval: (a) => (seen.push(a), { decision: 'deny', message: 'keep it' }),
    })) {
      events.push(e.type);
      if (e.type === 'done') done = e.response;
    }
    expect(mute.calls).toHaveLength(0);
    expect(events).toEqual(['attempt', 'approval', 'delta', 'attempt', 'done']);
    expect(seen).toMatchObject([{ kind: 'command', command: 'rm -rf build', toolId: 'asker' }]);
    expect(asker.calls[0]!.answers).toEqual([{ allow: false, message: 'keep it' }]);
    expect(done).toMatchObject({
      toolId: 'asker',
      attempts: [
        { toolId: 'mute', outcome: 'skipped', reason: 'unsupported' },
        { toolId: 'asker', outcome: 'succeeded' },
      ],
      result: { metadata: { approvals: [{ decision: 'deny', decidedBy: 'caller' }] } },
    });
  });

  it('chatWith waits for tb.approvals.decide without onApproval; tb.interrupt ends a running turn', async () => {
    const asker = scriptedAdapter('asker', {
      features: { approvals: true },
      script: [
        { deltas: ['ok'], asks: [rm] },
        { deltas: ['partial'], hang: true },
      ],
    });
    const tb = await toolbridge(asker);
    const answer = tb.chatWith('asker', ask);
    let pending: Approval[] = [];
    while (pending.length === 0) {
      await new Promise((r) => setTimeout(r, 10));
      pending = tb.approvals.list();
    }
    expect(tb.approvals.decide(pending[0]!.id, { decision: 'allow_session' })).toEqual({ id: pending[0]!.id, decision: 'allow_session' });
    const first = await answer;
    expect(asker.calls[0]!.answers).toEqual([{ allow: true }]);
    await expect(tb.interrupt(first.sessionId!)).rejects.toBeInstanceOf(SessionIdleError);

    const events = tb.streamWith('asker', { messages: [{ role: 'user', content: 'more' }], sessionId: first.sessionId });
    const texts: string[] = [];
    for await (const e of events) {
      if (e.type === 'delta') {
        texts.push(e.text);
        await tb.interrupt(first.sessionId!);
      }
      if (e.type === 'done')
        expect(e.response.result).toMatchObject({ message: { content: 'partial' }, metadata: { finishReason: 'interrupted' } });
    }
    expect(texts).toEqual(['partial']);
  });
});
