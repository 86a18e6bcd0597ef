import { createHash } from 'node:crypto';
import path from 'node:path';
import { DEFAULT_WARM_IDLE_MS, retriesOnFreshProcess, warmFingerprint, warmIdleMs, WarmPool, whichOnPath } from '@toolbridge/adapter-kit';
import { type CallContext, type ChatContext, type StreamEvent, type ToolRequest, type WarmLoad } from '@toolbridge/core';
import { raceAbort } from '@toolbridge/core/runtime';
import type { PiAdapterOptions } from './options.js';
import { RpcProcess, type RpcSpec } from './rpc-process.js';
import { commonArgs, runEnv, type TurnSettings } from './turn.js';
import { rpcTurn } from './warm-turn.js';

/** Warm processes at once (each holds one chat at a time, ~100 MB RSS measured). */
const MAX_PROCESSES = 4;

/**
 * Pi's warm transport: long-lived `pi --mode rpc` processes, one chat at a time each, kept by
 * setup (command, runtime directory, working directory, thinking level, environment). Each chat
 * picks its session (`new_session`, `switch_session`, `clone`) and model (`set_model`) on the
 * process; the permission level is decided per tool call by the adapter (the extension asks), so
 * it is not part of the setup. A process is retired when the CLI on PATH or the user's
 * `auth.json`, `models.json` or `settings.json` change, and after `warmIdleMs` idle.
 */
export class PiWarm {
  private readonly specs = new Map<string, { spec: RpcSpec; model?: string; signal?: AbortSignal }>();
  private readonly pool = new WarmPool<RpcProcess>({
    mode: 'exclusive',
    maxMembers: MAX_PROCESSES,
    start: (key) => {
      const s = this.specs.get(key)!;
      return RpcProcess.start(s.spec, s.model, s.signal);
    },
  });
  private lastSetup?: { key: string; fingerprint: string };
  private idleMs = DEFAULT_WARM_IDLE_MS;

  constructor(private readonly o: PiAdapterOptions) {}

  /** Why this chat must spawn, or undefined when a warm process can take it. */
  spawnReason(ctx: CallContext): string | undefined {
    if (this.o.warm === false) return 'warm transport turned off';
    if (warmIdleMs(ctx.config) === 0) return 'warmIdleMs is 0';
    return undefined;
  }

  private setup(
    ctx: CallContext & { cwd: string },
    turn: TurnSettings,
    userDir: string,
    signal?: AbortSignal,
  ): { key: string; fingerprint: string } {
    const command = this.o.command ?? 'pi';
    // The environment is part of what the process is (HOME, keys): hashed, never kept as text in the key.
    const envHash = createHash('sha256')
      .update(JSON.stringify(Object.entries(ctx.env).sort()))
      .digest('hex')
      .slice(0, 16);
    const key = JSON.stringify([command, turn.runtimeDir, ctx.cwd, turn.thinking ?? '', envHash]);
    const args = ['--mode', 'rpc', ...commonArgs(turn.runtimeDir, turn.model, turn.thinking)];
    // Exclusive members: a start is for the one chat asking, and ends with it (its signal).
    this.specs.set(key, {
      spec: { command, args, env: runEnv(ctx.env, turn.runtimeDir, { TOOLBRIDGE_PI_ASK: '1' }), cwd: ctx.cwd },
      model: turn.model,
      ...(signal ? { signal } : {}),
    });
    const files = [whichOnPath(command, ctx.env), ...['auth.json', 'models.json', 'settings.json'].map((f) => path.join(userDir, f))];
    const fingerprint = warmFingerprint({ command, thinking: turn.thinking ?? '' }, files);
    this.lastSetup = { key, fingerprint };
    return this.lastSetup;
  }

  /**
   * Run one turn on a warm process. False when none can be had (at the limit, or it would not
   * start): the caller runs the chat another way. A process that died before the turn said
   * anything is replaced once, transparently.
   */
  async *stream(request: ToolRequest, ctx: ChatContext, turn: TurnSettings, userDir: string): AsyncGenerator<StreamEvent, boolean> {
    this.idleMs = warmIdleMs(ctx.config);
    for (let attempt = 0; ; attempt++) {
      const { key, fingerprint } = this.setup(ctx, turn, userDir, ctx.signal);
      const lease = await raceAbort(this.pool.acquire(key, fingerprint, this.idleMs), ctx.signal).catch((e) => {
        if (ctx.signal.aborted) throw e;
        return undefined;
      });
      if (!lease) return false;
      const proc = lease.member;
      let said = false;
      try {
        for await (const event of rpcTurn(proc, request, ctx, turn)) {
          said = true;
          yield event;
        }
        return true;
      } catch (e) {
        if (retriesOnFreshProcess({ attempt, said }, proc, ctx.signal)) continue;
        throw e;
      } finally {
        // A turn that did not reach its end (cancelled, deadline) leaves the process busy: it is retired.
        if (proc.busy) proc.kill();
        lease.release(proc.alive && !proc.busy);
      }
    }
  }

  load(): WarmLoad | undefined {
    if (this.o.warm === false) return undefined;
    const load = { ...this.pool.load(), idleTimeoutMs: this.idleMs };
    const failed = this.lastSetup !== undefined && this.pool.startFailed(this.lastSetup.key, this.lastSetup.fingerprint);
    return failed && load.processes === 0 ? undefined : load;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
