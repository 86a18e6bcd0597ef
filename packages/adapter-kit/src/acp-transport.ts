import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  InvalidRequestError,
  ProviderExecutionError,
  type AdapterFeatures,
  type CallContext,
  type ChatContext,
  type StreamEvent,
  type ToolRequest,
  type WarmLoad,
} from '@toolbridge/core';
import { AcpAgent } from './acp-agent.js';
import { acpTurn } from './acp-turn.js';
import type { AcpTurnSpec } from './acp-turn-spec.js';
import { envFingerprint, warmFingerprint } from './fingerprint.js';
import { WarmTransport, type WarmSetup } from './warm-transport.js';

/** What of a chat only the warm ACP transport can do, in words. */
const ACP_ONLY = { mcpServers: 'takes MCP servers', approvals: 'asks for approvals' } as const;

/** What of a chat only the warm ACP transport can do, if anything. */
const acpOnlyFeature = (request: ToolRequest, ctx: ChatContext) =>
  request.mcpServers?.length ? 'mcpServers' : ctx.approvals ? 'approvals' : undefined;

/**
 * Why a chat the warm ACP transport cannot take must not spawn instead, or undefined when it may.
 * `mcpServers` reach an ACP agent only in `session/new` / `session/load`, and only the agent's ACP
 * side asks before an action (`session/request_permission`): the headless spawn path would drop
 * the servers, or run at the level without asking, so such a chat is refused. `why` names the cause.
 */
export function acpOnly(
  request: ToolRequest,
  ctx: ChatContext,
  name: string,
  toolId: string,
  why: string,
): InvalidRequestError | undefined {
  const feature = acpOnlyFeature(request, ctx);
  if (!feature) return undefined;
  return new InvalidRequestError(`${name} ${ACP_ONLY[feature]} only over its warm ACP transport, and ${why}`, {
    toolId,
    publicDetails: { reason: 'unsupported', feature },
  });
}

/** How an adapter starts its agent in ACP mode for one setup. */
export interface AcpLaunch {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Files whose change means a restart: the CLI as found on PATH, its login and config files. */
  files: readonly (string | undefined)[];
}

/** What an adapter gives the ACP transport: how to start its agent, and nothing about a turn loop. */
export interface AcpTransportSpec<S> {
  toolId: string;
  name: string;
  /** `warm: false` in the adapter's options turns the transport off. */
  enabled?: boolean;
  /**
   * The process for a chat's setup (what it is bound to at start: model, permission flags, policy
   * files). `stateDir` is a private directory the transport removes on close (for files the argv names).
   */
  launch(ctx: CallContext, setup: S, stateDir: () => Promise<string>): Promise<AcpLaunch> | AcpLaunch;
  /** Most agent processes at once (distinct setups); beyond it chats spawn. Default 3. */
  maxProcesses?: number;
  /** Bound on start-up (spawn to `initialize` answered). Default 30 s. */
  startTimeoutMs?: number;
}

/**
 * The kit's ACP client transport: one long-lived agent process per setup (`gemini --acp`,
 * `copilot --acp --stdio`, `qwen --acp`, …), shared by every chat, each chat its own ACP session.
 * On the warm pool's rules: a process is restarted when its setup's CLI, login or config files
 * change, shut down after `warmIdleMs` idle, not tried again for a while when it would not start
 * (chats spawn meanwhile), and a chat whose process died before it said anything is run again on
 * a fresh one.
 */
export class AcpTransport<S> {
  private readonly launches = new Map<string, AcpLaunch>();
  private readonly warm: WarmTransport<AcpAgent>;
  private stateDirPromise?: Promise<string>;

  constructor(private readonly spec: AcpTransportSpec<S>) {
    this.warm = new WarmTransport<AcpAgent>(
      {
        mode: 'shared',
        maxMembers: spec.maxProcesses ?? 3,
        start: (key) =>
          AcpAgent.start({ ...this.launches.get(key)!, toolId: spec.toolId, name: spec.name, timeoutMs: spec.startTimeoutMs ?? 30_000 }),
      },
      true,
    );
  }

  /**
   * The features an agent has by this transport, the same for every ACP agent, while it is on:
   * `warm`, approvals (`session/request_permission`) and a chat's MCP servers
   * (`session/new.mcpServers`; a chat with either that must spawn is refused, never run without
   * them). Interrupts (`session/cancel`) the spawn path has too (it stops the run).
   */
  get features(): Pick<AdapterFeatures, 'warm' | 'approvals' | 'interrupt' | 'mcpServers'> {
    const on = this.spec.enabled !== false;
    return { warm: on, approvals: on, interrupt: true, mcpServers: on };
  }

  /** Why a chat must spawn instead, or undefined when the transport may take it. */
  spawnReason(ctx: CallContext): string | undefined {
    return this.warm.offReason(this.spec.enabled !== false, ctx.config);
  }

  private stateDir = (): Promise<string> => (this.stateDirPromise ??= mkdtemp(path.join(tmpdir(), `toolbridge-${this.spec.toolId}-acp-`)));

  private async setupOf(ctx: CallContext, setup: S, turn?: AcpTurnSpec): Promise<WarmSetup> {
    const launch = await this.spec.launch(ctx, setup, this.stateDir);
    // A chat's MCP servers (their env and headers hold secrets: hashed, as the environment is) get a
    // process of their own: a session lives in the process that made it, so a live session made
    // without them (or with others) is never continued with them, and a session continued elsewhere
    // is loaded with them. Health's `load` follows the plain setup.
    const mcp = turn?.mcpServers?.length
      ? createHash('sha256').update(JSON.stringify(turn.mcpServers)).digest('hex').slice(0, 16)
      : undefined;
    // The environment is part of what the process is (HOME, keys): hashed, never kept as text in the key.
    const key = JSON.stringify([launch.command, launch.args, envFingerprint(launch.env), ...(mcp ? [mcp] : [])]);
    this.launches.set(key, launch);
    return { key, fingerprint: warmFingerprint({ args: launch.args }, launch.files), ...(mcp ? { reported: false } : {}) };
  }

  /**
   * Run one turn on a warm agent. Returns false when it cannot (no process to be had, an agent
   * that cannot load sessions asked to continue one, or it began retrying a failed model request
   * before saying anything): the caller then spawns.
   */
  async *stream(request: ToolRequest, ctx: ChatContext, setup: S, turn: AcpTurnSpec): AsyncGenerator<StreamEvent, boolean> {
    this.warm.configure(ctx.config);
    // The spawn path the caller falls back to cannot take MCP servers or ask: refused, never silently dropped.
    const cannot = (why: string): false => {
      const refusal = acpOnly(request, ctx, this.spec.name, this.spec.toolId, why);
      if (refusal) throw refusal;
      return false;
    };
    return yield* this.warm.run({
      signal: ctx.signal,
      lease: async () => (await this.warm.lease(await this.setupOf(ctx, setup, turn), ctx.signal)) ?? this.notStarted(request, ctx),
      turn: async function* (agent, progress) {
        if (request.resume && !agent.info.agentCapabilities?.loadSession) return cannot('the agent cannot load sessions');
        const end = yield* acpTurn(agent, request, ctx, turn, progress);
        // The agent could not load the session (not on its disk, or a CLI that cannot): its native resume over spawn.
        if (end && 'loadFailed' in end) return cannot('the agent could not load the session');
        if (end && 'retrying' in end) {
          // The spawn path reports the failure as the tool does, unless the chat cannot spawn: then it is reported here.
          if (!end.said && !acpOnlyFeature(request, ctx)) return false;
          throw turn.failure('the model request failed and the agent began retrying it');
        }
        return true;
      },
    });
  }

  /**
   * No agent process could be had: the caller spawns, unless the chat needs this transport. Then
   * it fails as a retryable tool failure (the next try may start one), not as a bad request.
   */
  private notStarted(request: ToolRequest, ctx: ChatContext): undefined {
    const feature = acpOnlyFeature(request, ctx);
    if (!feature) return undefined;
    throw new ProviderExecutionError(`${this.spec.name} could not start its ACP agent, and only it ${ACP_ONLY[feature]}`, {
      toolId: this.spec.toolId,
      retryable: true,
    });
  }

  /** Start the process for the default setup ahead of the first chat. */
  async prewarm(ctx: CallContext, setup: S): Promise<void> {
    this.warm.configure(ctx.config);
    if (this.spawnReason(ctx)) return;
    await this.warm.prewarm(await this.setupOf(ctx, setup));
  }

  /** For health's `load.warm`: undefined (health says `spawn`) when off, or nothing runs and the latest setup would not start. */
  load(): WarmLoad | undefined {
    return this.warm.load(this.spec.enabled !== false);
  }

  async close(): Promise<void> {
    await this.warm.close();
    const dir = await this.stateDirPromise?.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
