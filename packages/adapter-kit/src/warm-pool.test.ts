import { describe, expect, it } from '@jest/globals';
import { waitFor } from '@toolbridge/test-suite/kit';
import { retriesOnFreshProcess, WarmPool, type WarmMember } from './warm-pool.js';

class Member implements WarmMember {
  alive = true;
  closed = false;
  constructor(
    readonly key: string,
    readonly fingerprint: string,
    readonly pid: number | undefined = undefined,
  ) {}
  async close() {
    this.alive = false;
    this.closed = true;
  }
}

function pool(mode: 'exclusive' | 'shared', maxMembers = 4) {
  const started: Member[] = [];
  const p = new WarmPool<Member>({
    mode,
    maxMembers,
    async start(key, fingerprint) {
      const m = new Member(key, fingerprint);
      started.push(m);
      return m;
    },
  });
  return { p, started };
}

describe('WarmPool', () => {
  it('exclusive: a member serves one chat at a time and is reused once released', async () => {
    const { p, started } = pool('exclusive');
    const a = (await p.acquire('k', 'f1', 60_000))!;
    const b = (await p.acquire('k', 'f1', 60_000))!;
    expect(a.member).not.toBe(b.member);
    expect([a.fresh, b.fresh]).toEqual([true, true]);
    a.release();
    const c = (await p.acquire('k', 'f1', 60_000))!;
    expect(c.member).toBe(a.member);
    expect(c.fresh).toBe(false);
    expect(started).toHaveLength(2);
    expect(p.load()).toMatchObject({ processes: 2, busy: 2, idleTimeoutMs: 60_000 });
    await p.close();
    expect(started.every((m) => m.closed)).toBe(true);
  });

  it('exclusive: members still starting count against maxMembers (a prewarm racing four chats leaves four)', async () => {
    const { p, started } = pool('exclusive', 4);
    const prewarm = p.prewarm('k', 'f', 60_000);
    const leases = await Promise.all([1, 2, 3, 4].map(() => p.acquire('k', 'f', 60_000)));
    await prewarm;
    expect(started).toHaveLength(4);
    expect(leases.filter((l) => l === undefined)).toHaveLength(1);
    expect(p.load().processes).toBe(4);
    await p.close();
  });

  it('shared: concurrent callers share one member, started once', async () => {
    const { p, started } = pool('shared');
    const [a, b] = await Promise.all([p.acquire('k', 'f', 60_000), p.acquire('k', 'f', 60_000)]);
    expect(a!.member).toBe(b!.member);
    expect(started).toHaveLength(1);
    await p.close();
  });

  it('never reuses a member started with other settings: it is retired (a busy one after its chat)', async () => {
    const { p, started } = pool('shared');
    const old = (await p.acquire('k', 'config-1', 60_000))!;
    const next = (await p.acquire('k', 'config-2', 60_000))!;
    expect(next.member).not.toBe(old.member);
    expect(started[0]!.closed).toBe(false); // still answering its chat
    old.release();
    const again = (await p.acquire('k', 'config-2', 60_000))!;
    expect(again.member).toBe(next.member);
    expect(started[0]!.closed).toBe(true);
    await p.close();
  });

  it('drops a member that died, and shuts idle members down after the idle time', async () => {
    const { p, started } = pool('exclusive');
    const a = (await p.acquire('k', 'f', 100))!;
    a.member.alive = false;
    a.release();
    const b = (await p.acquire('k', 'f', 100))!;
    expect(b.member).not.toBe(a.member);
    b.release();
    await waitFor(() => started[1]!.closed, 2000, 'the idle member to be shut down');
    expect(p.load().processes).toBe(0);
  });

  it('peek: the live member of a setup, neither started nor lent, and no keep-alive for an idle one', async () => {
    const { p, started } = pool('shared');
    expect(p.peek('k', 'f')).toBeUndefined();
    expect(started).toHaveLength(0); // nothing started for a peek
    const a = (await p.acquire('k', 'f', 300))!;
    expect(p.peek('k', 'f')).toBe(a.member);
    expect(p.peek('k', 'other settings')).toBeUndefined();
    expect(p.peek('other key', 'f')).toBeUndefined();
    a.member.alive = false;
    expect(p.peek('k', 'f')).toBeUndefined(); // a member that died is no answer
    a.member.alive = true;
    a.release();
    expect(p.load()).toMatchObject({ processes: 1, busy: 0 }); // peeking lent nothing
    // Peeking all the while does not keep the idle member alive.
    await waitFor(() => p.peek('k', 'f') === undefined && started[0]!.closed, 3000, 'the idle member to be shut down');
    a.member.alive = true;
    expect(p.peek('k', 'f')).toBeUndefined(); // dropped from the pool, whatever it says
    await p.close();
  });

  it('idle time 0 turns warm mode off: no member, and running ones are shut down', async () => {
    const { p, started } = pool('shared');
    (await p.acquire('k', 'f', 60_000))!.release();
    expect(await p.acquire('k', 'f', 0)).toBeUndefined();
    expect(started[0]!.closed).toBe(true);
  });

  it('keeps at most maxMembers: an idle one makes room, else the caller spawns', async () => {
    const { p, started } = pool('exclusive', 2);
    const a = (await p.acquire('k1', 'f', 60_000))!;
    (await p.acquire('k2', 'f', 60_000))!.release();
    const c = (await p.acquire('k3', 'f', 60_000))!;
    expect(started[1]!.closed).toBe(true); // the idle one made room
    expect(await p.acquire('k4', 'f', 60_000)).toBeUndefined(); // both busy
    a.release();
    c.release();
    await p.close();
  });

  it('after close(), nothing is lent and a member still starting is ended', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const late = new Member('k', 'f');
    const p = new WarmPool<Member>({ mode: 'shared', maxMembers: 2, start: async () => (await gate, late) });
    const pending = p.acquire('k', 'f', 60_000);
    const closing = p.close();
    release();
    await closing;
    expect(await pending).toBeUndefined();
    expect(late.closed).toBe(true);
  });

  it('a setup whose member failed to start is not tried again until startRetryMs has passed, unless its fingerprint changes', async () => {
    let starts = 0;
    let fail = true;
    const p = new WarmPool<Member>({
      mode: 'shared',
      maxMembers: 2,
      startRetryMs: 300,
      async start(key, fingerprint) {
        starts++;
        if (fail) throw new Error('no server mode');
        return new Member(key, fingerprint);
      },
    });
    await expect(p.acquire('k', 'f1', 60_000)).rejects.toThrow('no server mode');
    expect(p.startFailed('k', 'f1')).toBe(true);
    await expect(p.acquire('k', 'f1', 60_000)).resolves.toBeUndefined();
    expect(starts).toBe(1);
    // The CLI or its config changed: a new fingerprint is tried at once.
    await expect(p.acquire('k', 'f2', 60_000)).rejects.toThrow('no server mode');
    expect(starts).toBe(2);
    fail = false;
    await waitFor(() => !p.startFailed('k', 'f1'), 5000, 'the retry time to pass');
    const lease = await p.acquire('k', 'f1', 60_000);
    expect(lease?.member.fingerprint).toBe('f1');
    expect(starts).toBe(3);
    await p.close();
  });
});

describe('retriesOnFreshProcess', () => {
  const live = new AbortController().signal;
  const dead = { alive: false, pid: undefined, close: async () => undefined };
  it('retries once, only when the process died before the turn said anything and the caller has not cancelled', () => {
    expect(retriesOnFreshProcess({ attempt: 0, said: false }, dead, live)).toBe(true);
    expect(retriesOnFreshProcess({ attempt: 1, said: false }, dead, live)).toBe(false);
    expect(retriesOnFreshProcess({ attempt: 0, said: true }, dead, live)).toBe(false);
    expect(retriesOnFreshProcess({ attempt: 0, said: false }, { ...dead, alive: true }, live)).toBe(false);
    expect(retriesOnFreshProcess({ attempt: 0, said: false }, dead, AbortSignal.abort())).toBe(false);
  });
});
