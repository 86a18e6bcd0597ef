import { describe, expect, it } from '@jest/globals';
import type { StreamEvent } from '@toolbridge/core';
import type { WarmMember } from './warm-pool.js';
import { WarmTransport } from './warm-transport.js';

class Member implements WarmMember {
  alive = true;
  closed = false;
  readonly pid = undefined;
  async close() {
    this.alive = false;
    this.closed = true;
  }
}

const delta = (text: string): StreamEvent => ({ type: 'delta', text });

function transport(mode: 'exclusive' | 'shared' = 'shared') {
  const started: Member[] = [];
  const t = new WarmTransport<Member>({
    mode,
    maxMembers: 2,
    async start() {
      const m = new Member();
      started.push(m);
      return m;
    },
  });
  t.configure({ warmIdleMs: 60_000 });
  return { t, started };
}

async function drain(gen: AsyncGenerator<StreamEvent, boolean>): Promise<{ events: StreamEvent[]; ran: boolean }> {
  const events: StreamEvent[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { events, ran: next.value };
    events.push(next.value);
  }
}

const setup = { key: 'k', fingerprint: 'f' };
/** A turn that says nothing and answers `ran`. */
const silent = (ran: boolean) =>
  async function* (): AsyncGenerator<StreamEvent, boolean> {
    yield* [];
    return ran;
  };

describe('WarmTransport.run', () => {
  it('runs a turn whose member died before it said anything once more, on a freshly started member', async () => {
    const { t, started } = transport();
    const signal = new AbortController().signal;
    let turns = 0;
    const { events, ran } = await drain(
      t.run({
        signal,
        lease: () => t.lease(setup, signal),
        turn: async function* (member) {
          if (turns++ === 0) {
            member.alive = false;
            throw new Error('the process died');
          }
          yield delta('hi');
          return true;
        },
      }),
    );
    expect([ran, events, turns, started.length]).toEqual([true, [delta('hi')], 2, 2]);
    expect(t.load(true)?.processes).toBe(1);
    await t.close();
  });

  it('does not run it again once it said something, nor a second time', async () => {
    const { t, started } = transport();
    const signal = new AbortController().signal;
    const dies = (saysFirst: boolean) =>
      drain(
        t.run({
          signal,
          lease: () => t.lease(setup, signal),
          turn: async function* (member) {
            if (saysFirst) yield delta('partial');
            member.alive = false;
            throw new Error('the process died');
          },
        }),
      );
    await expect(dies(true)).rejects.toThrow('the process died');
    expect(started).toHaveLength(1);
    await expect(dies(false)).rejects.toThrow('the process died');
    expect(started).toHaveLength(3);
    await t.close();
  });

  it('answers false without a word when no member can be had, and when the turn did not run', async () => {
    const { t } = transport();
    const signal = new AbortController().signal;
    expect(
      await drain(
        t.run({
          signal,
          lease: async () => undefined,
          turn: silent(true),
        }),
      ),
    ).toEqual({
      events: [],
      ran: false,
    });
    expect(
      await drain(
        t.run({
          signal,
          lease: () => t.lease(setup, signal),
          turn: silent(false),
        }),
      ),
    ).toEqual({
      events: [],
      ran: false,
    });
    await t.close();
  });

  it('counts active turns; a retired member ends once its last turn has, and new setups get a new generation', async () => {
    const { t, started } = transport();
    const signal = new AbortController().signal;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const spec = (wait: boolean) => ({
      signal,
      lease: () => t.lease(setup, signal),
      turn: async function* () {
        if (wait) await gate;
        yield delta('x');
        return true;
      },
      reusable: (member: Member) => {
        t.retire(member);
        return member.alive;
      },
    });
    const first = drain(t.run(spec(true)));
    await new Promise((r) => setTimeout(r, 10));
    const member = started[0]!;
    expect(t.activeTurns(member)).toBe(1);
    expect(t.generation).toBe(0);
    await drain(t.run(spec(false)));
    // Retired by the second turn, but the first still runs on it.
    expect([t.generation, t.isRetired(member), member.closed]).toEqual([1, true, false]);
    release();
    await first;
    await new Promise((r) => setTimeout(r, 10));
    expect([t.activeTurns(member), member.closed]).toEqual([0, true]);
    await t.close();
  });

  it('a reader that stops early runs the turn’s own clean-up, then gives the member back', async () => {
    const { t, started } = transport('exclusive');
    const signal = new AbortController().signal;
    let cleaned = false;
    const gen = t.run({
      signal,
      lease: () => t.lease(setup, signal),
      turn: async function* () {
        try {
          yield delta('a');
          yield delta('b');
          return true;
        } finally {
          cleaned = true;
        }
      },
    });
    expect((await gen.next()).value).toEqual(delta('a'));
    await gen.return(false);
    expect(cleaned).toBe(true);
    expect(t.activeTurns(started[0]!)).toBe(0);
    // Given back: the next chat gets the same (exclusive) member.
    const lease = await t.lease(setup, signal);
    expect(lease?.member).toBe(started[0]);
    await t.close();
  });

  it('a chat cancelled while its member starts throws, and the member then waits idle', async () => {
    let finish!: () => void;
    const started: Member[] = [];
    const t = new WarmTransport<Member>({
      mode: 'exclusive',
      maxMembers: 1,
      start: async () => {
        await new Promise<void>((r) => (finish = r));
        const m = new Member();
        started.push(m);
        return m;
      },
    });
    t.configure({ warmIdleMs: 60_000 });
    const controller = new AbortController();
    const pending = t.lease(setup, controller.signal);
    await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    finish();
    await new Promise((r) => setTimeout(r, 10));
    expect(t.load(true)).toMatchObject({ processes: 1, busy: 0 });
    await t.close();
  });
});
