import { homedir } from 'node:os';
import path from 'node:path';
import { defineAdapter, probeVersion, resolvePermissions, runProcess } from '@toolbridge/adapter-kit';
import type { CallContext, ToolAdapter } from '@toolbridge/core';
import { codexLogin, parseLoginStatus } from './auth.js';
import { codexConfig, LEVEL_OF, SANDBOX_OF, TOOL_ID } from './config.js';
import type { CodexAdapterOptions } from './options.js';
import { execTurn } from './spawn.js';
import { readUsageLimits } from './usage-limits.js';

/**
 * The Codex agent (`codex` on PATH): chats run `codex exec --json` with the conversation on
 * stdin; login state from `codex login status`; usage windows from Codex's own session logs.
 */
export function createCodexAdapter(options: CodexAdapterOptions = {}): ToolAdapter {
  const command = options.command ?? 'codex';
  const versionTimeoutMs = options.versionTimeoutMs ?? 10_000;
  const login = codexLogin(command, options.loginTtlMs ?? 10 * 60_000, options.loginOutputWaitMs ?? 5_000);
  const codexHomeOf = (ctx: CallContext): string =>
    options.codexHome ?? (ctx.env.CODEX_HOME || path.join(ctx.env.HOME || homedir(), '.codex'));

  const checkAuth = async (ctx: CallContext) => {
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
    return parseLoginStatus(`${r.stderrTail}\n${r.stdout}`, r.exitCode);
  };

  return defineAdapter({
    id: TOOL_ID,
    name: 'Codex',
    type: 'agent',
    config: codexConfig,
    features: { activity: true, permissions: ['read-only', 'workspace-write', 'full'] },

    async detect(ctx) {
      const { model } = codexConfig.read(ctx.config);
      const models = model ? [model] : [];
      const probe = await probeVersion(ctx, { command, toolId: TOOL_ID, timeoutMs: versionTimeoutMs });
      if (!probe.available) return { available: false, models, ...(model ? { defaultModel: model } : {}), reason: probe.reason };
      return { available: true, version: probe.version, models, ...(model ? { defaultModel: model } : {}) };
    },

    checkAuth,
    startAuth: (ctx) => login.start(ctx, () => checkAuth(ctx)),

    usageLimits: (ctx) =>
      readUsageLimits(codexHomeOf(ctx), {
        signal: ctx.signal,
        ...(options.usageMaxFiles ? { maxFiles: options.usageMaxFiles } : {}),
        ...(options.usageTailBytes ? { tailBytes: options.usageTailBytes } : {}),
      }),

    stream(request, ctx) {
      const settings = codexConfig.read(ctx.config);
      const permissions = resolvePermissions(request, ctx, settings.sandbox ? LEVEL_OF[settings.sandbox] : undefined);
      const sandbox = SANDBOX_OF[permissions.level];
      return execTurn(options, request, ctx, {
        sandbox,
        model: request.model ?? settings.model,
        codexHome: codexHomeOf(ctx),
        metadata: { sandbox },
      });
    },

    dispose: () => login.close(),
  });
}
