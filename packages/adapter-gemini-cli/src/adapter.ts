import { acpMcpServers, acpOnly, defineAdapter, probeVersion, resolvePermissions } from '@toolbridge/adapter-kit';
import {
  InvalidRequestError,
  type CallContext,
  type DetectResult,
  type PermissionLevel,
  type ToolAdapter,
  type ToolRequest,
} from '@toolbridge/core';
import { checkGeminiAuth, geminiDir, manualLogin, readJsonFile } from './auth.js';
import { geminiConfig, NAME, TOOL_ID } from './config.js';
import type { GeminiCliAdapterOptions } from './options.js';
import { checkRequest, runTurn } from './spawn.js';
import { geminiTurnSpec, geminiWarm, type GeminiSetup } from './warm.js';
import path from 'node:path';

/** Gemini CLI's model aliases (`-m auto` routes each turn; the others pick a family). */
export const GEMINI_MODEL_ALIASES: readonly string[] = ['auto', 'pro', 'flash', 'flash-lite'];

/** The model a chat uses: the request's, else `geminiModel`, else the one in Gemini's own settings (`model.name`). */
async function modelFor(requested: string | undefined, ctx: CallContext): Promise<string | undefined> {
  const configured = requested ?? geminiConfig.read(ctx.config).model;
  if (configured) return configured;
  const settings = await readJsonFile(path.join(geminiDir(ctx.env), 'settings.json'));
  const name = (settings?.model as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name ? name : undefined;
}

/**
 * Google's Gemini CLI (`gemini` on PATH). Chats run `gemini --output-format stream-json` headless
 * with the conversation on stdin; sign-in state is read from Gemini's settings, credential files
 * and environment, offline.
 */
export function createGeminiCliAdapter(options: GeminiCliAdapterOptions = {}): ToolAdapter {
  const command = options.command ?? 'gemini';
  const warm = geminiWarm(options);
  const setupOf = async (request: ToolRequest, ctx: CallContext, level: PermissionLevel): Promise<GeminiSetup> => ({
    level,
    model: await modelFor(request.model, ctx),
    includeDirectories: request.additionalDirs,
  });

  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: NAME,
    type: 'agent',
    config: geminiConfig,
    features: {
      activity: true,
      sessions: { resume: true, fork: true },
      permissions: ['read-only', 'workspace-write', 'full'],
      images: true,
      additionalDirs: true,
      // warm, approvals, interrupt and MCP servers come with the ACP transport (the headless spawn path has no per-chat MCP servers).
      ...warm.features,
    },

    async detect(ctx): Promise<DetectResult> {
      const probe = await probeVersion(
        // `--version` starts the whole CLI; without the relauncher it is one process and ~1 s faster.
        { ...ctx, env: { ...ctx.env, GEMINI_CLI_NO_RELAUNCH: 'true' } },
        { command, toolId: TOOL_ID, timeoutMs: options.versionTimeoutMs ?? 15_000 },
      );
      if (!probe.available) return { available: false, models: [], reason: probe.reason };
      const model = await modelFor(undefined, ctx);
      const models = [...new Set([...(model ? [model] : []), ...GEMINI_MODEL_ALIASES])];
      // Every Gemini model the CLI offers takes images.
      return { available: true, version: probe.version, models, defaultModel: model ?? 'auto', capabilities: ['vision'] };
    },

    checkAuth: (ctx) => checkGeminiAuth(ctx.env),
    startAuth: async (ctx) => manualLogin(command, await checkGeminiAuth(ctx.env)),
    usageLimits: async () => ({
      status: 'unavailable',
      reason:
        'Gemini CLI keeps no usage windows on disk: API keys have none, and the quota of a Google login is only shown inside its interactive /stats',
    }),

    async *stream(request, ctx) {
      const permissions = resolvePermissions(request, ctx);
      const model = await modelFor(request.model, ctx);
      checkRequest(request, model);
      // A fork copies the session file into a new run: only the spawn path can (ACP has no fork).
      const spawnReason = request.resume?.fork ? 'a fork runs on the spawn path' : warm.spawnReason(ctx);
      const refusal = spawnReason ? acpOnly(request, ctx, NAME, TOOL_ID, spawnReason) : undefined;
      if (refusal) throw refusal;
      if (request.mcpServers?.length) {
        // The level's admin policy denies `mcp_*` below full (MCP tools are not confined to the workspace).
        if (permissions.level !== 'full') {
          throw new InvalidRequestError(`${NAME} takes MCP servers only at "full" permissions: below it every MCP tool is denied`, {
            toolId: TOOL_ID,
            publicDetails: { reason: 'unsupported', feature: 'mcpServers' },
          });
        }
      }
      if (!spawnReason) {
        const setup = await setupOf(request, ctx, permissions.level);
        const turn = { ...geminiTurnSpec(ctx, permissions), mcpServers: acpMcpServers(request.mcpServers) };
        if (yield* warm.stream(request, ctx, setup, turn)) return;
      }
      yield* runTurn(options, request, ctx, { ...permissions, model });
    },

    prewarm: async (ctx) => warm.prewarm(ctx, await setupOf({ messages: [], additionalDirs: [] }, ctx, resolvePermissions({}, ctx).level)),
    warmLoad: () => warm.load(),
    dispose: () => warm.close(),
  });
}
