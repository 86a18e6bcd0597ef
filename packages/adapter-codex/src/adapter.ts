import { homedir } from 'node:os';
import path from 'node:path';
import { defineAdapter, runProcess } from '@toolbridge/adapter-kit';
import { InvalidRequestError, ProviderExecutionError, type CallContext, type ToolAdapter } from '@toolbridge/core';
import { codexLogin, loginStatusAuth, providerAuth } from './auth.js';
import { codexConfig, TOOL_ID } from './config.js';
import { detectCodex } from './detect.js';
import type { CodexAdapterOptions } from './options.js';
import { takesFormat } from './input.js';
import { execTurn } from './spawn.js';
import { readRateLimits } from './rate-limits.js';
import { turnSettings, withMcpServers } from './turn.js';
import { readUsageLimits } from './usage-limits.js';
import { readCodexUserConfig } from './user-config.js';
import { CodexWarm } from './warm.js';

/** A chat with `approvals: "ask"` that the warm server cannot take (it asks; `codex exec` cannot). */
function approvalsNeedServer(spawnReason: string | undefined): ProviderExecutionError {
  return spawnReason
    ? new ProviderExecutionError(`Codex asks for approvals only on its app-server, which this chat cannot use (${spawnReason})`, {
        toolId: TOOL_ID,
      })
    : new ProviderExecutionError("Codex's app-server could not be started, and only it asks for approvals", {
        toolId: TOOL_ID,
        retryable: true,
      });
}

/** Approvals at workspace-write: Codex would run an approved command outside its sandbox (see `stream`). */
function approvalsAtWorkspaceWrite(): InvalidRequestError {
  return new InvalidRequestError(
    'Codex cannot ask for approvals at workspace-write: it runs an approved command outside its sandbox. Use read-only or full with approvals, or workspace-write without them',
    { toolId: TOOL_ID, publicDetails: { reason: 'unsupported', feature: 'approvals' } },
  );
}

/**
 * The Codex agent (`codex` on PATH): chats run `codex exec --json` with the conversation on
 * stdin, continuing Codex's own threads for sessions; models from Codex's catalog and the user's
 * config; login state from the provider setup and `codex login status`; usage windows read live
 * by the running app-server (a ChatGPT login), else from Codex's own session logs.
 */
export function createCodexAdapter(options: CodexAdapterOptions = {}): ToolAdapter {
  const command = options.command ?? 'codex';
  const versionTimeoutMs = options.versionTimeoutMs ?? 10_000;
  const login = codexLogin(command, options.loginTtlMs ?? 10 * 60_000, options.loginOutputWaitMs ?? 5_000);
  const codexHomeOf = (ctx: CallContext): string =>
    options.codexHome ?? (ctx.env.CODEX_HOME || path.join(ctx.env.HOME || homedir(), '.codex'));
  const warm = new CodexWarm(options);
  /** The warm server of the default settings when one runs (a bad setting: none). */
  const warmServer = (ctx: CallContext) => {
    try {
      return warm.running(ctx, turnSettings({}, ctx, codexHomeOf(ctx)));
    } catch {
      return undefined;
    }
  };

  const checkAuth = async (ctx: CallContext) => {
    const user = await readCodexUserConfig(codexHomeOf(ctx), codexConfig.read(ctx.config).profile);
    const byProvider = providerAuth(user, ctx.env);
    if (byProvider) return byProvider;
    const r = await runProcess({
      command,
      args: ['login', 'status'],
      env: ctx.env,
      signal: ctx.signal,
      timeoutMs: versionTimeoutMs,
      toolId: TOOL_ID,
      maxOutputBytes: 64 * 1024,
    });
    // Codex prints the status on stderr; read stdout too in case that changes.
    return loginStatusAuth(`${r.stderrTail}\n${r.stdout}`, r.exitCode, ctx.env);
  };

  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: 'Codex',
    type: 'agent',
    config: codexConfig,
    features: {
      sessions: { resume: !options.ephemeral, fork: !options.ephemeral },
      structuredOutput: 'native',
      images: true,
      activity: true,
      permissions: ['read-only', 'workspace-write', 'full'],
      additionalDirs: true,
      warm: options.warm !== false,
      // Both on the warm transport only (`codex exec` can neither ask nor be interrupted): see stream().
      approvals: options.warm !== false,
      interrupt: options.warm !== false,
      // As `mcp_servers` config overrides on both transports (mcp-servers.ts).
      mcpServers: true,
    },

    // Native only for a schema OpenAI's strict mode takes; core asks for any other format in words.
    takesFormat,

    detect: (ctx) => detectCodex(ctx, { command, timeoutMs: versionTimeoutMs, codexHome: codexHomeOf(ctx) }),

    checkAuth,
    startAuth: (ctx) => login.start(ctx, () => checkAuth(ctx)),

    async usageLimits(ctx) {
      const server = warmServer(ctx);
      const live = server ? await readRateLimits(server, ctx.signal) : undefined;
      if (live && 'limits' in live) return live.limits;
      const logged = await readUsageLimits(codexHomeOf(ctx), {
        signal: ctx.signal,
        ...(options.usageMaxFiles ? { maxFiles: options.usageMaxFiles } : {}),
        ...(options.usageTailBytes ? { tailBytes: options.usageTailBytes } : {}),
      });
      if (logged.status === 'unavailable' && live && 'failed' in live)
        return { ...logged, reason: `${logged.reason}; Codex's app-server could not read them from the ChatGPT backend either` };
      return logged;
    },

    async *stream(request, ctx) {
      // Inside the generator: a bad setting fails the stream, never the call that creates it.
      let turn = turnSettings(request, ctx, codexHomeOf(ctx));
      // Measured with Codex 0.169 (2026-11-26, 5 of 5 runs): a command approved on app-server at
      // workspace-write ran outside its sandbox (it wrote /var/tmp). The level is the ceiling, so
      // approvals there are refused before anything runs; at full nothing is sandboxed anyway.
      if (ctx.approvals && turn.permissions.sandbox === 'workspace-write') throw approvalsAtWorkspaceWrite();
      if (request.mcpServers?.length) {
        const user = await readCodexUserConfig(turn.codexHome, turn.profile);
        turn = withMcpServers(turn, request, ctx.approvals !== undefined, user.shellExclude ?? []);
      }
      const spawnReason = warm.spawnReason(ctx, turn);
      if (!spawnReason && (yield* warm.stream(request, ctx, turn))) return;
      // `codex exec` never asks: running it would do unasked what the caller wanted to approve.
      if (ctx.approvals) throw approvalsNeedServer(spawnReason);
      yield* execTurn(options, request, ctx, turn);
    },

    prewarm: (ctx) => warm.prewarm(ctx, turnSettings({}, ctx, codexHomeOf(ctx))),
    warmLoad: () => warm.load(),

    dispose: async () => {
      await Promise.allSettled([login.close(), warm.close()]);
    },
  });
}
