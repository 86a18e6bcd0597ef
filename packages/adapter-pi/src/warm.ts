import { createHash } from 'node:crypto';
import path from 'node:path';
import { warmFingerprint, WarmTransport, whichOnPath, type WarmSetup } from '@toolbridge/adapter-kit';
import type { CallContext, ChatContext, StreamEvent, ToolRequest, WarmLoad } from '@toolbridge/core';
import type { PiAdapterOptions } from './options.js';
import { RpcProcess, type RpcSpec } from './warm-process.js';
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
  private readonly warm = new WarmTransport<RpcProcess>(
    {
      mode: 'exclusive',
      maxMembers: MAX_PROCESSES,
      start: (key) => {
        const s = this.specs.get(key)!;
        return RpcProcess.start(s.spec, s.model, s.signal);
      },
    },
    true,
  );

  constructor(private readonly o: PiAdapterOptions) {}

  /** Why this chat must spawn, or undefined when a warm process can take it. */
  spawnReason(ctx: CallContext): string | undefined {
    return this.warm.offReason(this.o.warm !== false, ctx.config);
  }

  private setup(ctx: CallContext & { cwd: string }, turn: TurnSettings, userDir: string, signal?: AbortSignal): WarmSetup {
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
    return { key, fingerprint: warmFingerprint({ command, thinking: turn.thinking ?? '' }, files) };
  }

  /**
   * Run one turn on a warm process. False when none can be had (at the limit, or it would not
   * start): the caller runs the chat another way. A process that died before the turn said
   * anything is replaced once, transparently.
   */
  async *stream(request: ToolRequest, ctx: ChatContext, turn: TurnSettings, userDir: string): AsyncGenerator<StreamEvent, boolean> {
    this.warm.configure(ctx.config);
    return yield* this.warm.run({
      signal: ctx.signal,
      lease: () => this.warm.lease(this.setup(ctx, turn, userDir, ctx.signal), ctx.signal),
      turn: async function* (proc) {
        yield* rpcTurn(proc, request, ctx, turn);
        return true;
      },
      // A turn that did not reach its end (cancelled, deadline) leaves the process busy: it is retired.
      reusable: (proc) => {
        if (proc.busy) proc.kill();
        return proc.alive && !proc.busy;
      },
    });
  }

  load(): WarmLoad | undefined {
    return this.warm.load(this.o.warm !== false);
  }

  close(): Promise<void> {
    return this.warm.close();
  }
}
