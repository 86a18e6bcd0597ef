import { homedir } from 'node:os';
import path from 'node:path';
import {
  DEFAULT_WARM_IDLE_MS,
  envFingerprint,
  retriesOnFreshProcess,
  warmFingerprint,
  warmIdleMs,
  WarmPool,
  whichOnPath,
} from '@toolbridge/adapter-kit';
import {
  ProviderExecutionError,
  type CallContext,
  type ChatContext,
  type ResponseFormat,
  type StreamEvent,
  type ToolRequest,
  type WarmLoad,
} from '@toolbridge/core';
import { promptForm } from '@toolbridge/core/runtime';
import { raceAbort } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';
import type { ModelCatalogs } from './images.js';
import { envWithMcpServers } from './mcp-servers.js';
import { modelFor } from './models.js';
import type { ResolvedOptions } from './options.js';
import { OpenCodeServer } from './serve-process.js';
import type { SessionDirs } from './session-files.js';
import { runTurn } from './spawn.js';
import { serveTurn } from './warm-turn.js';

/** Start-up bound: 1.6–3.9 s to the listening line measured, 15.7 s once on a loaded machine (FACTS §7). */
const START_TIMEOUT_MS = 45_000;

/** The files OpenCode's settings rest on: its login (`auth.json`) and its global config files. */
function settingsFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const data = env.XDG_DATA_HOME || path.join(home, '.local', 'share');
  const config = env.XDG_CONFIG_HOME || path.join(home, '.config');
  return [
    path.join(data, 'opencode', 'auth.json'),
    ...['opencode.json', 'opencode.jsonc', 'config.json'].map((f) => path.join(config, 'opencode', f)),
    ...(env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : []),
  ];
}

/**
 * OpenCode's warm transport: one long-lived `opencode serve` per OpenCode setup (command and
 * environment), shared by every chat. Each stateless chat is a new OpenCode session; sessions
 * continue or fork theirs; working directory (`x-opencode-directory`), model, permission rules,
 * images and the answer's schema are per session or message. A server is restarted when the CLI
 * on PATH, OpenCode's login or global config files change, and shut down after `warmIdleMs` idle.
 */
export class OpenCodeWarm {
  private readonly specs = new Map<string, NodeJS.ProcessEnv>();
  private readonly pool = new WarmPool<OpenCodeServer>({
    mode: 'shared',
    // One per setup in practice; one more lets a restarted server start while the stale one finishes its chats.
    maxMembers: 2,
    start: (key) => OpenCodeServer.start({ command: this.o.command, env: this.specs.get(key)!, timeoutMs: START_TIMEOUT_MS }),
  });
  private idleMs = DEFAULT_WARM_IDLE_MS;
  /** Bumped to retire the servers in use: the next chat starts a new one. */
  private generation = 0;
  /** Why the last chat that wanted the warm server did not get one (for that chat's metadata). */
  unavailable: string | undefined;

  constructor(
    private readonly o: ResolvedOptions,
    private readonly catalogs: ModelCatalogs,
    private readonly sessions: SessionDirs,
  ) {}

  /** Whether a chat's format can go natively: a schema, to the server (serve's `format`); `opencode run` has no such option. */
  takesFormat(format: ResponseFormat, ctx: CallContext): boolean {
    return format.type === 'json_schema' && this.spawnReason(ctx) === undefined;
  }

  /** Why this chat must spawn `opencode run`, or undefined when the warm server can take it. */
  spawnReason(ctx: CallContext): string | undefined {
    if (!this.o.warm) return 'warm transport turned off';
    if (warmIdleMs(ctx.config) === 0) return 'warmIdleMs is 0';
    // Flags of `opencode run` (an agent, --auto ...) mean nothing to serve.
    if (this.o.extraArgs.length > 0) return 'extraArgs are set';
    return undefined;
  }

  private keyOf(ctx: CallContext): { key: string; fingerprint: string } {
    // The environment is what the server is (HOME, XDG dirs, keys, OPENCODE_CONFIG_CONTENT): hashed, never kept as text in the key.
    const key = JSON.stringify([this.o.command, envFingerprint(ctx.env)]);
    this.specs.set(key, ctx.env);
    const files = [whichOnPath(this.o.command, ctx.env), ...settingsFiles(ctx.env)];
    return { key, fingerprint: `${warmFingerprint({}, files)}#${this.generation}` };
  }

  /**
   * Run one turn on a warm server. Returns false when no server can be had (at the limit, or it
   * would not start): the caller spawns instead. A server that dies before the turn said anything
   * is replaced once, transparently.
   */
  async *stream(request: ToolRequest, ctx: ChatContext, model: string | undefined): AsyncGenerator<StreamEvent, boolean> {
    this.idleMs = warmIdleMs(ctx.config);
    for (let attempt = 0; ; attempt++) {
      const { key, fingerprint } = this.keyOf(ctx);
      // A server that would not start is not tried again for a minute, or until the CLI or its
      // settings change (the pool's `startRetryMs`): chats spawn meanwhile.
      if (this.pool.startFailed(key, fingerprint)) {
        this.unavailable ??= 'opencode serve failed to start less than a minute ago';
        return false;
      }
      const lease = await raceAbort(this.pool.acquire(key, fingerprint, this.idleMs), ctx.signal).catch((e: unknown) => {
        if (ctx.signal.aborted) throw e;
        this.unavailable = `opencode serve did not start: ${(e as Error).message}`;
        return undefined;
      });
      if (!lease) {
        this.unavailable ??= 'every warm server is taken';
        return false;
      }
      this.unavailable = undefined;
      const server = lease.member;
      server.activeTurns++;
      server.directories.add(ctx.cwd);
      let said = false;
      try {
        for await (const event of serveTurn(server, request, ctx, model, this.catalogs, this.sessions)) {
          said = true;
          yield event;
        }
        return true;
      } catch (e) {
        if (retriesOnFreshProcess({ attempt, said }, server, ctx.signal)) continue;
        throw e;
      } finally {
        server.activeTurns--;
        // serve keeps an instance per directory and `/instance/dispose` does not give its memory back
        // (measured: 600 MB after one directory, 1.1 GB after 11): past the cap, a new server.
        if (server.directories.size >= this.o.warmMaxDirectories && !server.retired) {
          // New chats get a new server; this one ends once its last chat has.
          server.retired = true;
          this.generation++;
        }
        lease.release(server.alive && !(server.retired && server.activeTurns === 0));
      }
    }
  }

  /** Start the server ahead of the first chat (`serve --warm`): its 2–4 s start-up is then not in any chat. */
  async prewarm(ctx: CallContext): Promise<void> {
    this.idleMs = warmIdleMs(ctx.config);
    if (this.spawnReason(ctx)) return;
    const { key, fingerprint } = this.keyOf(ctx);
    await this.pool.prewarm(key, fingerprint, this.idleMs).catch((e: unknown) => {
      this.unavailable = `opencode serve did not start: ${(e as Error).message}`;
      throw e;
    });
  }

  load(): WarmLoad | undefined {
    if (!this.o.warm) return undefined;
    return { ...this.pool.load(), idleTimeoutMs: this.idleMs };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** One chat: on the warm server when it can take it, else `opencode run`. */
export async function* chatTurn(
  warm: OpenCodeWarm,
  o: ResolvedOptions,
  request: ToolRequest,
  ctx: ChatContext,
  catalogs: ModelCatalogs,
  sessions: SessionDirs,
): AsyncGenerator<StreamEvent> {
  // The chat's MCP servers are in the environment: a run reads them, a warm server of their own starts with them.
  if (request.mcpServers?.length) ctx = { ...ctx, env: envWithMcpServers(ctx.env, request.mcpServers) };
  const model = modelFor(request.model, ctx.config);
  const why = warm.spawnReason(ctx);
  if (!why && (yield* warm.stream(request, ctx, model))) return;
  // `opencode run` rejects every `ask` itself: approvals need the server.
  if (ctx.approvals)
    throw new ProviderExecutionError(
      `OpenCode asks for approvals only on its server (opencode serve), which this chat cannot use (${why ?? warm.unavailable ?? 'it did not start'})`,
      { toolId: TOOL_ID, retryable: !why },
    );
  const fallback = o.warm && !why ? warm.unavailable : undefined;
  // `opencode run` has no schema option: a format meant for the server (which could not take the chat) goes in words.
  const spawned = request.responseFormat ? promptForm(request, request.responseFormat) : request;
  for await (const event of runTurn(o, spawned, ctx, model, catalogs, sessions)) {
    // Say why a chat meant for the warm server was spawned (the server would not start, or all were taken).
    if (event.type === 'result' && fallback) event.result.metadata = { ...event.result.metadata, warmUnavailable: fallback };
    yield event;
  }
}
