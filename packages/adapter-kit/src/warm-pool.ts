import type { WarmLoad } from '@toolbridge/core';
import { groupRssBytes } from './proc.js';

/** A long-lived tool process (or a handle on one) that a warm pool manages. */
export interface WarmMember {
  /** The process group leader's pid (for the memory it uses). */
  readonly pid: number | undefined;
  /** False once it has exited or crashed: the pool drops it. */
  readonly alive: boolean;
  /** End it (close its input, kill its group) and wait until it is gone. */
  close(): Promise<void>;
}

export interface WarmPoolOptions<M extends WarmMember> {
  /** Start a member for a key; the fingerprint says which settings it was started with. */
  start(key: string, fingerprint: string): Promise<M>;
  /** `exclusive`: one chat at a time per member (a conversation process); `shared`: any number (a server). */
  mode: 'exclusive' | 'shared';
  /** Most members alive at once (the tool's concurrency limit); beyond it `acquire` answers undefined. */
  maxMembers: number;
  /**
   * After a member failed to start, how long its setup (key and fingerprint) is not tried again
   * (default 60 s): `acquire` answers undefined meanwhile, so chats spawn instead of each paying for
   * a start that fails (a CLI without its server mode, a broken config). A new fingerprint (the CLI
   * or its config changed) is tried at once.
   */
  startRetryMs?: number;
}

/** A member lent to one chat; `release(reusable)` gives it back (or retires it). */
export interface WarmLease<M> {
  member: M;
  /** Whether the member was started for this chat (its start-up is in this chat's latency). */
  fresh: boolean;
  release(reusable?: boolean): void;
}

interface Entry<M> {
  key: string;
  fingerprint: string;
  member: M;
  users: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Warm (long-lived) tool processes, kept by key (what a process is bound to at start: a working
 * directory, a tool set, a permission level) and fingerprint (the settings it was started with:
 * config, the CLI's version, its login and config files). A member whose fingerprint no longer
 * matches is retired, never reused: a warm process never answers with stale settings. Members idle
 * for `idleMs` are shut down; `idleMs` 0 turns the pool off (`acquire` answers undefined and the
 * caller spawns). Nothing outlives `close()`.
 */
export class WarmPool<M extends WarmMember> {
  private readonly entries = new Set<Entry<M>>();
  private readonly starting = new Map<string, Promise<Entry<M>>>();
  /**
   * Members being started now (exclusive ones too): they count against `maxMembers`, or a
   * prewarm still starting and four chats at once would leave five processes.
   */
  private startsUnderWay = 0;
  /** Setups whose member failed to start, and until when they are not tried again. */
  private readonly failedStarts = new Map<string, number>();
  private closed = false;
  private idleMs = 0;

  constructor(private readonly options: WarmPoolOptions<M>) {}

  /**
   * A member for this key and fingerprint: an idle (exclusive) or running (shared) one, else a new
   * one; undefined when warm mode is off, the pool is at its limit, it is closing, or this setup's
   * member failed to start a moment ago (`startFailed`). A start that fails rejects.
   */
  async acquire(key: string, fingerprint: string, idleMs: number): Promise<WarmLease<M> | undefined> {
    this.idleMs = idleMs;
    if (this.closed || idleMs <= 0) {
      if (idleMs <= 0) await this.closeAll();
      return undefined;
    }
    if (this.startFailed(key, fingerprint)) return undefined;
    this.retire((e) => !e.member.alive || (e.key === key && e.fingerprint !== fingerprint));
    let fresh = false;
    let entry = [...this.entries].find(
      (e) => e.key === key && e.fingerprint === fingerprint && (this.options.mode === 'shared' || e.users === 0),
    );
    if (!entry) {
      const id = `${key}\u0000${fingerprint}`;
      // A shared member is started once for everyone asking meanwhile; exclusive ones each their own.
      const pending = this.options.mode === 'shared' ? this.starting.get(id) : undefined;
      if (!pending) {
        if (this.size() >= this.options.maxMembers) this.retireOneIdle();
        if (this.size() >= this.options.maxMembers) return undefined;
      }
      entry = await (pending ?? this.startEntry(id, key, fingerprint));
      fresh = !pending;
      if (this.closed) {
        await entry.member.close();
        return undefined;
      }
    }
    const e = entry;
    e.users++;
    if (e.idleTimer) clearTimeout(e.idleTimer);
    e.idleTimer = undefined;
    let released = false;
    return {
      member: e.member,
      fresh,
      release: (reusable = true) => {
        if (released) return;
        released = true;
        e.users--;
        if (!reusable || !e.member.alive) return void this.drop(e);
        if (e.users === 0) this.armIdle(e);
      },
    };
  }

  /**
   * A live member of this setup, neither leased nor started: for a read on the side (a health
   * check asking the server something). Its idle timer runs on, so such reads never keep it alive.
   */
  peek(key: string, fingerprint: string): M | undefined {
    for (const e of this.entries) if (e.key === key && e.fingerprint === fingerprint && e.member.alive) return e.member;
    return undefined;
  }

  /** Whether this setup's member failed to start less than `startRetryMs` ago. */
  startFailed(key: string, fingerprint: string): boolean {
    return (this.failedStarts.get(`${key}\u0000${fingerprint}`) ?? 0) > Date.now();
  }

  /** Members alive and being started. */
  private size(): number {
    return this.entries.size + this.startsUnderWay;
  }

  private startEntry(id: string, key: string, fingerprint: string): Promise<Entry<M>> {
    this.startsUnderWay++;
    const promise = new Promise<M>((resolve) => resolve(this.options.start(key, fingerprint))).then(
      (member) => {
        this.startsUnderWay--;
        this.failedStarts.delete(id);
        const entry: Entry<M> = { key, fingerprint, member, users: 0 };
        this.entries.add(entry);
        return entry;
      },
      (e: unknown) => {
        this.startsUnderWay--;
        const now = Date.now();
        for (const [setup, until] of this.failedStarts) if (until <= now) this.failedStarts.delete(setup);
        this.failedStarts.set(id, now + (this.options.startRetryMs ?? 60_000));
        throw e;
      },
    );
    if (this.options.mode === 'shared') {
      this.starting.set(id, promise);
      const forget = () => this.starting.delete(id);
      promise.then(forget, forget);
    }
    return promise;
  }

  /** Start a member ahead of the first chat (a server's start-up) and leave it idle. */
  async prewarm(key: string, fingerprint: string, idleMs: number): Promise<void> {
    const lease = await this.acquire(key, fingerprint, idleMs);
    lease?.release(true);
  }

  private armIdle(e: Entry<M>): void {
    e.idleTimer = setTimeout(() => {
      if (e.users === 0) this.drop(e);
    }, this.idleMs);
    e.idleTimer.unref();
  }

  private drop(e: Entry<M>): void {
    if (!this.entries.delete(e)) return;
    if (e.idleTimer) clearTimeout(e.idleTimer);
    void e.member.close().catch(() => undefined);
  }

  private retire(predicate: (e: Entry<M>) => boolean): void {
    for (const e of [...this.entries]) if (predicate(e) && (e.users === 0 || !e.member.alive)) this.drop(e);
    // A busy member with stale settings finishes its chat, then is not reused.
    for (const e of this.entries) if (predicate(e)) e.fingerprint = `${e.fingerprint}\u0000retired`;
  }

  private retireOneIdle(): void {
    const idle = [...this.entries].find((e) => e.users === 0);
    if (idle) this.drop(idle);
  }

  /** What the pool holds now, for health records. */
  load(): WarmLoad {
    const members = [...this.entries];
    return {
      processes: members.length,
      busy: members.filter((e) => e.users > 0).length,
      rssBytes: members.reduce((sum, e) => sum + (e.member.pid ? groupRssBytes(e.member.pid) : 0), 0),
      idleTimeoutMs: this.idleMs,
    };
  }

  /** Shut every member down (config changed, warm mode turned off). */
  async closeAll(): Promise<void> {
    const members = [...this.entries];
    this.entries.clear();
    // Members still starting are ended as soon as they are up.
    await Promise.allSettled(
      [...this.starting.values()].map((p) =>
        p.then(async (e) => {
          this.entries.delete(e);
          await e.member.close();
        }),
      ),
    );
    await Promise.allSettled(members.map((e) => (e.idleTimer && clearTimeout(e.idleTimer), e.member.close())));
  }

  /** Close the pool for good: no new members; every member ended. */
  async close(): Promise<void> {
    this.closed = true;
    await this.closeAll();
  }
}

/**
 * Whether a warm turn that failed is run again, once, on a fresh process: only when its process
 * died before the turn said anything and the caller has not cancelled. Anything later is that
 * chat's failure (a typed error), and the next chat gets a new process.
 */
export function retriesOnFreshProcess(turn: { attempt: number; said: boolean }, member: WarmMember, signal: AbortSignal): boolean {
  return turn.attempt === 0 && !turn.said && !member.alive && !signal.aborted;
}
