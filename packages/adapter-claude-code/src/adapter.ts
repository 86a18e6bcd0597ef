import { tmpdir } from 'node:os';
import { defineAdapter, probeVersion, runProcess } from '@toolbridge/adapter-kit';
import { InvalidRequestError, ProviderExecutionError, type AuthState, type CallContext, type ToolAdapter } from '@toolbridge/core';
import { imagesUnsupported, tail } from '@toolbridge/core/runtime';
import { claudeLogin, parseAuthStatus } from './auth.js';
import { claudeCodeConfig, TOOL_ID } from './config.js';
import type { ClaudeCodeAdapterOptions } from './options.js';
import { planAccess } from './permissions.js';
import { isClaudeModel, settingsModel } from './settings.js';
import { printTurn, type TurnSettings } from './spawn.js';
import {
  defaultStateDir,
  readSnapshot,
  snapshotFromRateLimit,
  usageLimitsFrom,
  writeSnapshot,
  type RateLimitInfo,
} from './usage-limits.js';
import { ClaudeWarm } from './warm.js';

export const CLAUDE_CODE_MODEL_ALIASES: readonly string[] = ['sonnet', 'opus', 'haiku'];

/** The Claude Code adapter (`claude-code`): drives the `claude` CLI in print mode with stream-json in and out. */
export function createClaudeCodeAdapter(options: ClaudeCodeAdapterOptions = {}): ToolAdapter {
  if (options.maxRetries !== undefined && (!Number.isInteger(options.maxRetries) || options.maxRetries < 0)) {
    throw new InvalidRequestError('maxRetries must be a non-negative integer', { toolId: TOOL_ID });
  }
  if (options.structuredAttempts !== undefined && (!Number.isInteger(options.structuredAttempts) || options.structuredAttempts < 1)) {
    throw new InvalidRequestError('structuredAttempts must be a positive integer', { toolId: TOOL_ID });
  }
  const command = options.command ?? 'claude';
  const persist = options.persistSessions ?? true;
  const login = claudeLogin(command, options.loginTtlMs ?? 10 * 60_000, options.loginUrlWaitMs ?? 5000);
  const stateDir = (env: NodeJS.ProcessEnv) => options.stateDir ?? defaultStateDir(env);
  const warm = new ClaudeWarm(options, stateDir);
  /** Subscription type from the last `claude auth status`, for usage-limit snapshots. */
  let plan: string | undefined;

  const checkAuth = async (ctx: CallContext): Promise<AuthState> => {
    const run = await runProcess({
      command,
      args: ['auth', 'status', '--json'],
      env: ctx.env,
      cwd: tmpdir(),
      signal: ctx.signal,
      timeoutMs: options.authTimeoutMs ?? 15_000,
      toolId: TOOL_ID,
      maxOutputBytes: 256 * 1024,
    });
    const state = parseAuthStatus(run.stdout);
    if (!state) {
      const stderr = tail(run.stderrTail, 300);
      throw new ProviderExecutionError(
        `\`${command} auth status\` gave no readable answer (exit code ${run.exitCode})${stderr ? `: ${stderr}` : ''}`,
        { toolId: TOOL_ID },
      );
    }
    if (state.plan) plan = state.plan;
    return state;
  };

  const recordRateLimit = async (info: RateLimitInfo, env: NodeJS.ProcessEnv): Promise<void> => {
    const dir = stateDir(env);
    const snapshot = snapshotFromRateLimit(info, { observedAt: new Date(), plan: plan ?? (await readSnapshot(dir))?.plan });
    // A state file we cannot write must not fail the chat that reported the windows.
    if (snapshot) await writeSnapshot(dir, snapshot).catch(() => undefined);
  };

  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: 'Claude Code',
    type: 'agent',
    config: claudeCodeConfig,
    features: {
      // Resuming needs the first turn on disk: without persistence core hands over the transcript instead.
      ...(persist ? { sessions: { resume: true, fork: true } } : {}),
      structuredOutput: 'native',
      images: true,
      activity: true,
      permissions: ['read-only', 'workspace-write', 'full'],
      additionalDirs: true,
      mcpServers: true,
      ...(options.warm === false ? {} : { warm: true }),
      approvals: true,
      interrupt: true,
    },

    async detect(ctx) {
      const { model } = claudeCodeConfig.read(ctx.config);
      const probe = await probeVersion(ctx, { command, toolId: TOOL_ID, timeoutMs: options.detectTimeoutMs ?? 10_000, cwd: tmpdir() });
      if (!probe.available) return { available: false, models: [], reason: probe.reason };
      // The configured model is passed as --model, which beats every setting.
      const defaultModel = model ?? (await settingsModel(ctx.env));
      const models = [...new Set([...(defaultModel ? [defaultModel] : []), ...CLAUDE_CODE_MODEL_ALIASES])];
      return {
        available: true,
        version: probe.version,
        models,
        ...(defaultModel ? { defaultModel } : {}),
        capabilities: isClaudeModel(defaultModel) ? ['vision'] : [],
      };
    },

    checkAuth,
    startAuth: (ctx) => login.start(ctx, () => checkAuth(ctx)),
    usageLimits: async (ctx) => usageLimitsFrom(await readSnapshot(stateDir(ctx.env)), Date.now(), plan),

    stream(request, ctx) {
      const s = claudeCodeConfig.read(ctx.config);
      // Discovery speaks for the default model; a model the request names is judged here.
      if (request.model && !isClaudeModel(request.model) && request.messages.some((m) => m.content.some((p) => p.type === 'image'))) {
        throw imagesUnsupported(TOOL_ID, `Claude Code cannot take images with model ${request.model}`);
      }
      const access = planAccess(request, ctx, s.toolAccess);
      const turn: TurnSettings = { access, model: request.model ?? s.model, maxTurns: s.maxTurns, persist };
      const onRateLimit = (info: RateLimitInfo) => recordRateLimit(info, ctx.env);
      return (async function* () {
        // A warm process was started with fixed flags: a chat with its own MCP servers runs on its own.
        if (!request.mcpServers?.length && (yield* warm.stream(request, ctx, turn, onRateLimit))) return;
        yield* printTurn(options, request, ctx, turn, onRateLimit);
      })();
    },

    async prewarm(ctx) {
      const s = claudeCodeConfig.read(ctx.config);
      await warm.prewarm(ctx, { access: planAccess({}, ctx, s.toolAccess), model: s.model, maxTurns: s.maxTurns, persist });
    },
    warmLoad: () => warm.load(),

    async dispose() {
      await Promise.all([login.close(), warm.close()]);
    },
  });
}
