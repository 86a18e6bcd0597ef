import { acpMcpServers, acpOnly, defineAdapter, probeVersion, resolvePermissions } from '@toolbridge/adapter-kit';
import { InvalidRequestError, type CallContext, type DetectResult, type ToolAdapter } from '@toolbridge/core';
import { checkCopilotAuth, copilotLogin } from './auth.js';
import { resolveCopilotBinary } from './binary.js';
import { copilotConfig, NAME, TOOL_ID } from './config.js';
import type { CopilotCliAdapterOptions } from './options.js';
import { readCopilotQuota } from './quota.js';
import { checkRequest, runTurn } from './spawn.js';
import { copilotTurnSpec, copilotWarm } from './warm.js';

/** The model a chat asks for: the request's, else `copilotModel`; else Copilot's own choice (COPILOT_MODEL, its settings). */
function modelFor(requested: string | undefined, ctx: CallContext): string | undefined {
  return requested ?? copilotConfig.read(ctx.config).model;
}

/**
 * GitHub Copilot CLI (`copilot` on PATH). Chats run `copilot --output-format=json` headless with
 * the conversation on stdin; sign-in state is read offline from Copilot's config, the
 * environment and the GitHub CLI's login; `startAuth()` relays the device code of `copilot login`;
 * the premium-request allowance from Copilot's cache of GitHub's `copilot_internal/user` answer.
 */
export function createCopilotCliAdapter(options: CopilotCliAdapterOptions = {}): ToolAdapter {
  const command = options.command ?? 'copilot';
  const warm = copilotWarm(options);
  const login = copilotLogin(command, options.loginArgs ?? [], options.loginTtlMs ?? 15 * 60_000, options.loginOutputWaitMs ?? 10_000);

  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: NAME,
    type: 'agent',
    config: copilotConfig,
    features: {
      activity: true,
      sessions: { resume: true, fork: false },
      permissions: ['read-only', 'workspace-write', 'full'],
      images: true,
      additionalDirs: true,
      // warm, approvals, interrupt and MCP servers (url ones only: see stream()) come with the ACP transport.
      ...warm.features,
    },

    async detect(ctx): Promise<DetectResult> {
      const probe = await probeVersion(ctx, {
        command: await resolveCopilotBinary(command, ctx.env),
        toolId: TOOL_ID,
        timeoutMs: options.versionTimeoutMs ?? 15_000,
        // "GitHub Copilot CLI 1.0.102." (never `copilot version`: it waits on an update check)
        parse: (out) => /Copilot CLI (\d+\.\d+\.\d+[0-9A-Za-z.+-]*?)\.?\s*$/m.exec(out)?.[1],
      });
      if (!probe.available) return { available: false, models: [], reason: probe.reason };
      const model = modelFor(undefined, ctx) ?? (ctx.env.COPILOT_MODEL || undefined);
      // Copilot sends images to any model; its chat models take them (a custom provider's may not).
      return {
        available: true,
        version: probe.version,
        models: model ? [model] : [],
        ...(model ? { defaultModel: model } : {}),
        capabilities: ['vision'],
      };
    },

    checkAuth: (ctx) => checkCopilotAuth(ctx.env),
    startAuth: (ctx) => login.start(ctx, () => checkCopilotAuth(ctx.env)),
    usageLimits: (ctx) => readCopilotQuota(ctx.env),

    async *stream(request, ctx) {
      const permissions = resolvePermissions(request, ctx);
      const model = modelFor(request.model, ctx);
      checkRequest(request, model);
      const spawnReason = warm.spawnReason(ctx);
      const refusal = spawnReason ? acpOnly(request, ctx, NAME, TOOL_ID, spawnReason) : undefined;
      if (refusal) throw refusal;
      if (request.mcpServers?.length) {
        // Measured (1.0.102): its ACP side logs `Rejecting non-http/sse MCP server "<name>" from client` and never starts it.
        const stdio = request.mcpServers.find((s) => 'command' in s);
        if (stdio) {
          throw new InvalidRequestError(`${NAME} takes only url MCP servers from Toolbridge ("${stdio.name}" has a command)`, {
            toolId: TOOL_ID,
            publicDetails: { reason: 'unsupported', feature: 'mcpServers' },
          });
        }
      }
      if (!spawnReason) {
        const setup = { level: permissions.level, model, addDirs: request.additionalDirs };
        const turn = { ...copilotTurnSpec(options, ctx, permissions, model), mcpServers: acpMcpServers(request.mcpServers) };
        if (yield* warm.stream(request, ctx, setup, turn)) return;
      }
      yield* runTurn(options, request, ctx, { ...permissions, model });
    },

    prewarm: (ctx) => warm.prewarm(ctx, { level: resolvePermissions({}, ctx).level, model: modelFor(undefined, ctx), addDirs: [] }),
    warmLoad: () => warm.load(),
    dispose: async () => {
      await Promise.allSettled([login.manager.close(), warm.close()]);
    },
  });
}
