import { type StreamEvent, type WarmLoad } from '@toolbridge/core';
import { raceAbort } from '@toolbridge/core/runtime';
import { DEFAULT_WARM_IDLE_MS, warmIdleMs } from './fingerprint.js';
import { retriesOnFreshProcess, WarmPool, type WarmLease, type WarmMember, type WarmPoolOptions } from './warm-pool.js';

/** What a warm member is kept by: what it is bound to at start (key) and the settings it started with (fingerprint). */
export interface WarmSetup {
  key: string;
  fingerprint: string;
  /** false: health's load does not follow this setup (a chat's own, such as one with its MCP servers). */
  reported?: boolean;
}

/** A warm turn's progress: `said` once it passed something on (from then on it is never run again elsewhere). */
export interface WarmProgress {
  said: boolean;
}

/** What an adapter gives `WarmTransport.run` for one chat: data and small functions, never the loop. */
export interface WarmTurnSpec<M extends WarmMember, P extends WarmProgress = WarmProgress> {
  /** The chat's cancellation: no retry once it aborted. */
  signal: AbortSignal;
  /**
   * A member for this attempt (usually `transport.lease(setup, signal)`); undefined when none can
   * be had, and the chat then runs another way. Attempt 1 is the retry: its member must be a
   * freshly started one (a shared pool starts one, the dead member being gone).
   */
  lease(attempt: number): Promise<WarmLease<M> | undefined>;
  /** A fresh progress record per attempt (default `{ said: false }`), handed to `turn` and `reusable`. */
  progress?(): P;
  /** One turn on the member; false when it did not run and said nothing (the chat then runs another way). */
  turn(member: M, progress: P): AsyncGenerator<StreamEvent, boolean>;
  /** Whether an event counts as said (default: every event). */
  says?(event: StreamEvent): boolean;
  /**
   * After the turn (ended, failed, cancelled): whether the member may take another chat (default:
   * it is alive). Here a broken member is killed, or marked with `transport.retire()`.
   */
  reusable?(member: M, progress: P): boolean;
}

/**
 * The warm turn, written once: a pool of long-lived tool processes and the lease loop around each
 * chat (take a member, count its active turns, run the turn, run it again once on a freshly
 * started process when the first died before saying anything (`retriesOnFreshProcess`), retire a
 * broken member, give it back). With the idle time read from the config, start-ups ahead of the
 * first chat and the load for health records. Every warm adapter is built on it.
 */
export class WarmTransport<M extends WarmMember> {
  readonly pool: WarmPool<M>;
  /** The idle time of the latest chat's config (`warmIdleMs`). */
  idleMs = DEFAULT_WARM_IDLE_MS;
  private readonly active = new Map<M, number>();
  private readonly retired = new WeakSet<M>();
  private generationCount = 0;
  private lastSetup?: WarmSetup;

  /** `failedStartIsOff`: health says `spawn` while nothing runs and the latest setup's member would not start. */
  constructor(
    options: WarmPoolOptions<M>,
    private readonly failedStartIsOff = false,
  ) {
    this.pool = new WarmPool<M>(options);
  }

  /** Reads `warmIdleMs` from a chat's config (0 turns warm mode off). */
  configure(config: Readonly<Record<string, unknown>>): number {
    return (this.idleMs = warmIdleMs(config));
  }

  /** Why a chat must take the spawn path for the generic reasons (warm turned off, `warmIdleMs` 0), else undefined. */
  offReason(enabled: boolean, config: Readonly<Record<string, unknown>>): string | undefined {
    if (!enabled) return 'warm transport turned off';
    if (warmIdleMs(config) === 0) return 'warmIdleMs is 0';
    return undefined;
  }

  /**
   * Bumped by `retire`: an adapter that puts it in its fingerprints gets new members for new chats
   * while a retired (shared) one finishes its own.
   */
  get generation(): number {
    return this.generationCount;
  }

  /** Turns running on a member now. */
  activeTurns(member: M): number {
    return this.active.get(member) ?? 0;
  }

  /** Take a member out of service: it ends once its last turn has. */
  retire(member: M): void {
    if (this.retired.has(member)) return;
    this.retired.add(member);
    this.generationCount++;
  }

  isRetired(member: M): boolean {
    return this.retired.has(member);
  }

  /**
   * A pool lease for a setup; undefined when none can be had (at the limit, not started: then
   * `onStartFailure` hears why). A chat cancelled meanwhile throws, and a member that is still
   * starting then waits idle for the next one.
   */
  async lease(setup: WarmSetup, signal: AbortSignal, onStartFailure?: (e: unknown) => void): Promise<WarmLease<M> | undefined> {
    if (setup.reported !== false) this.lastSetup = setup;
    const pending = this.pool.acquire(setup.key, setup.fingerprint, this.idleMs).catch((e: unknown) => {
      if (!signal.aborted) onStartFailure?.(e);
      return undefined;
    });
    try {
      return await raceAbort(pending, signal);
    } catch (e) {
      void pending.then((l) => l?.release(true));
      throw e;
    }
  }

  /** Run one chat on a member (see the class); false, nothing said, when no member could be had or the turn did not run. */
  async *run<P extends WarmProgress>(spec: WarmTurnSpec<M, P>): AsyncGenerator<StreamEvent, boolean> {
    for (let attempt = 0; ; attempt++) {
      const lease = await spec.lease(attempt);
      if (!lease) return false;
      const member = lease.member;
      this.active.set(member, this.activeTurns(member) + 1);
      const progress = spec.progress?.() ?? ({ said: false } as P);
      const turn = spec.turn(member, progress);
      let ended = false;
      try {
        for (;;) {
          const next = await turn.next();
          ended = next.done === true;
          if (next.done) return next.value;
          if (!spec.says || spec.says(next.value)) progress.said = true;
          yield next.value;
        }
      } catch (e) {
        ended = true;
        if (retriesOnFreshProcess({ attempt, said: progress.said }, member, spec.signal)) continue;
        throw e;
      } finally {
        try {
          // The reader stopped early (a consumer that leaves): the turn's own clean-up runs first.
          if (!ended) await turn.return(false);
        } finally {
          this.giveBack(lease, spec, progress);
        }
      }
    }
  }

  private giveBack<P extends WarmProgress>(lease: WarmLease<M>, spec: WarmTurnSpec<M, P>, progress: P): void {
    const member = lease.member;
    const left = this.activeTurns(member) - 1;
    if (left > 0) this.active.set(member, left);
    else this.active.delete(member);
    const reusable = spec.reusable ? spec.reusable(member, progress) : member.alive;
    // A retired member ends once its last turn has (what it left running goes with it).
    lease.release(reusable && !(this.retired.has(member) && left === 0));
  }

  /** Start a member for a setup ahead of the first chat (a server's start-up) and leave it idle. */
  prewarm(setup: WarmSetup): Promise<void> {
    this.lastSetup = setup;
    return this.pool.prewarm(setup.key, setup.fingerprint, this.idleMs);
  }

  /** For health's `load.warm`: undefined (health says `spawn`) when warm mode is off. */
  load(enabled: boolean): WarmLoad | undefined {
    if (!enabled) return undefined;
    const load = { ...this.pool.load(), idleTimeoutMs: this.idleMs };
    const last = this.lastSetup;
    const failed = this.failedStartIsOff && last !== undefined && this.pool.startFailed(last.key, last.fingerprint);
    return failed && load.processes === 0 ? undefined : load;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
