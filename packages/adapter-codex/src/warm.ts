import path from 'node:path';
import { envFingerprint, warmFingerprint, WarmTransport, whichOnPath, type WarmSetup } from '@toolbridge/adapter-kit';
import type { CallContext, ChatContext, StreamEvent, ToolRequest, WarmLoad } from '@toolbridge/core';
import { overrideArgs } from './argv.js';
import { AppServer } from './warm-process.js';
import { EXEC_API_KEY_ENV } from './auth.js';
import type { CodexMcpSetup } from './mcp-servers.js';
import type { CodexAdapterOptions } from './options.js';
import type { TurnSettings } from './turn.js';
import { warmTurn } from './warm-turn.js';

/** Bound on a server's start-up (spawn, then the `initialize` handshake). */
const START_TIMEOUT_MS = 10_000;

/** What a warm server is started with. */
interface ServerSpec {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** `extraArgs` a server can take too: only `-c key=value` pairs (exec's other flags mean nothing to app-server). */
function configArgs(extra: readonly string[]): string[] | undefined {
  for (let i = 0; i < extra.length; i += 2) if (extra[i] !== '-c' && extra[i] !== '--config') return undefined;
  return extra.length % 2 === 0 ? [...extra] : undefined;
}

/**
 * Codex's warm transport: one long-lived `codex app-server` per Codex setup (command, CODEX_HOME,
 * environment), shared by every chat: each stateless chat is a new thread, sessions resume or fork
 * their thread, and model, working directory, permission level, extra directories and the answer's
 * schema are per thread or turn. A server is restarted when the CLI on PATH, `config.toml` or
 * `auth.json` changes, is shut down after `warmIdleMs` idle, and a chat falls back to `codex exec`
 * where the server cannot do what exec does (below).
 */
export class CodexWarm {
  private readonly specs = new Map<string, ServerSpec>();
  private readonly warm = new WarmTransport<AppServer>(
    {
      mode: 'shared',
      // One per setup in practice; one more lets a restarted server start while the stale one finishes its chats.
      maxMembers: 2,
      // Measured: spawn to `initialize` answered 201 ms. A server that is not up in 10 s (a `codex` whose
      // `app-server` never answers) must not eat the chat's deadline: the chat spawns `codex exec` instead.
      start: (key) => AppServer.start({ ...this.specs.get(key)!, timeoutMs: START_TIMEOUT_MS }),
    },
    true,
  );

  constructor(private readonly o: CodexAdapterOptions) {}

  /** Why this chat must spawn `codex exec`, or undefined when the warm server can take it. */
  spawnReason(ctx: CallContext, turn: TurnSettings): string | undefined {
    const off = this.warm.offReason(this.o.warm !== false, ctx.config);
    if (off) return off;
    // app-server has no `-p`; its `config` takes overrides, not a profile's layering.
    if (turn.profile) return 'a Codex profile is selected';
    // exec sends a key from CODEX_API_KEY; app-server 0.169 sends none (measured).
    if (ctx.env[EXEC_API_KEY_ENV]) return `${EXEC_API_KEY_ENV} is set`;
    if (!configArgs(this.o.extraArgs ?? [])) return 'extraArgs hold more than -c overrides';
    return undefined;
  }

  /**
   * A chat with MCP servers gets a server of its own set-up: app-server starts MCP servers only from
   * its start-up config (a `thread/start` `config` with `mcp_servers` starts none, measured with
   * 0.169), so their overrides are its `-c` arguments and their secrets its environment, and both
   * are part of the key (chats with the same servers share it; others never see them).
   */
  private keyOf(ctx: CallContext, codexHome: string, mcp?: CodexMcpSetup): WarmSetup {
    const command = this.o.command ?? 'codex';
    const env = mcp ? { ...ctx.env, ...mcp.env } : ctx.env;
    const mcpArgs = overrideArgs(mcp?.config);
    // The environment is part of what the server is (HOME, keys): hashed, never kept as text in the key.
    const key = JSON.stringify([command, codexHome, envFingerprint(env), ...mcpArgs]);
    const args = [
      ...(this.o.shellSnapshot ? [] : ['-c', 'features.shell_snapshot=false']),
      ...configArgs(this.o.extraArgs ?? [])!,
      ...mcpArgs,
    ];
    this.specs.set(key, { command, args, env });
    const files = [whichOnPath(command, ctx.env), path.join(codexHome, 'config.toml'), path.join(codexHome, 'auth.json')];
    // A retired server's generation is over: new chats get a fresh one. `load()` reports the plain set-up's server.
    return { key, fingerprint: `${warmFingerprint({ args }, files)}#${this.warm.generation}`, ...(mcp ? { reported: false } : {}) };
  }

  /**
   * Run one turn on a warm server. Undefined when no server can be had (at the limit, or it would
   * not start): the caller spawns instead. A server that dies before the turn said anything is
   * replaced once, transparently.
   */
  async *stream(request: ToolRequest, ctx: ChatContext, turn: TurnSettings): AsyncGenerator<StreamEvent, boolean> {
    this.warm.configure(ctx.config);
    const options = { ephemeral: this.o.ephemeral, planTool: this.o.planTool ?? true };
    return yield* this.warm.run({
      signal: ctx.signal,
      // A server that would not start (a Codex without app-server, a broken config) is not tried again
      // for a minute, or until the CLI or its config changes (the pool's `startRetryMs`): chats spawn meanwhile.
      lease: () => this.warm.lease(this.keyOf(ctx, turn.codexHome, turn.mcp), ctx.signal),
      turn: async function* (server) {
        yield* warmTurn(server, request, ctx, turn, options);
        return true;
      },
      // Codex's notices ("Model metadata … not found") come first on every turn; a retry may repeat them, nothing else.
      says: (event) => event.type !== 'activity' || event.activity.kind !== 'other',
      // A server that left a command running (an interrupt does not stop it) ends once its last turn has.
      reusable: (server) => {
        if (server.recycling) this.warm.retire(server);
        return server.alive;
      },
    });
  }

  /** The running server of this setup, if one runs now (none is started): for reading its rate limits. */
  running(ctx: CallContext, turn: TurnSettings): AppServer | undefined {
    if (this.spawnReason(ctx, turn)) return undefined;
    const { key, fingerprint } = this.keyOf(ctx, turn.codexHome);
    const server = this.warm.pool.peek(key, fingerprint);
    return server && !this.warm.isRetired(server) ? server : undefined;
  }

  /** Start the server for the default settings ahead of the first chat (`serve` start-up). */
  async prewarm(ctx: CallContext, turn: TurnSettings): Promise<void> {
    this.warm.configure(ctx.config);
    if (this.spawnReason(ctx, turn)) return;
    await this.warm.prewarm(this.keyOf(ctx, turn.codexHome));
  }

  /** Undefined (health says `spawn`) when warm mode is off, or nothing runs and the latest setup's server would not start. */
  load(): WarmLoad | undefined {
    return this.warm.load(this.o.warm !== false);
  }

  close(): Promise<void> {
    return this.warm.close();
  }
}
