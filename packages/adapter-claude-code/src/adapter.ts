import { tmpdir } from 'node:os';
import { defineAdapter, probeVersion, resolvePermissions, runProcess } from '@toolbridge/adapter-kit';
import { InvalidRequestError, ProviderExecutionError, tail, type AuthState, type CallContext, type ToolAdapter } from '@toolbridge/core';
import { claudeLogin, parseAuthStatus } from './auth.js';
import { ACCESS_OF, claudeCodeConfig, LEVEL_OF, TOOL_ID, type EffectiveSettings } from './config.js';
import type { ClaudeCodeAdapterOptions } from './options.js';
import { printTurn } from './spawn.js';
import {
  defaultStateDir,
  readSnapshot,
  snapshotFromRateLimit,
  usageLimitsFrom,
  writeSnapshot,
  type RateLimitInfo,
} from './usage-limits.js';

export const CLAUDE_CODE_MODEL_ALIASES: readonly string[] = ['sonnet', 'opus', 'haiku'];

/** The Claude Code adapter (`claude-code`): drives the `claude` CLI in print mode. */
export function createClaudeCodeAdapter(options: ClaudeCodeAdapterOptions = {}): ToolAdapter {
  if (options.maxRetries !== undefined && (!Number.isInteger(options.maxRetries) || options.maxRetries < 0)) {
    throw new InvalidRequestError('maxRetries must be a non-negative integer', { toolId: TOOL_ID });
  }
  const command = options.command ?? 'claude';
  const login = claudeLogin(command, options.loginTtlMs ?? 10 * 60_000, options.loginUrlWaitMs ?? 5000);
  const stateDir = (env: NodeJS.ProcessEnv) => options.stateDir ?? defaultStateDir(env);
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
    id: TOOL_ID,
    name: 'Claude Code',
    type: 'agent',
    config: claudeCodeConfig,
    features: { activity: true, permissions: ['read-only', 'workspace-write', 'full'] },

    async detect(ctx) {
      const { model } = claudeCodeConfig.read(ctx.config);
      const probe = await probeVersion(ctx, { command, toolId: TOOL_ID, timeoutMs: options.detectTimeoutMs ?? 10_000, cwd: tmpdir() });
      if (!probe.available) return { available: false, models: [], reason: probe.reason };
      const models = [...new Set([...(model ? [model] : []), ...CLAUDE_CODE_MODEL_ALIASES])];
      return { available: true, version: probe.version, models, ...(model ? { defaultModel: model } : {}) };
    },

    checkAuth,
    startAuth: (ctx) => login.start(ctx, () => checkAuth(ctx)),
    usageLimits: async (ctx) => usageLimitsFrom(await readSnapshot(stateDir(ctx.env)), Date.now(), plan),

    stream(request, ctx) {
      const s = claudeCodeConfig.read(ctx.config);
      const permissions = resolvePermissions(request, ctx, s.toolAccess ? LEVEL_OF[s.toolAccess] : undefined);
      // Unset everywhere, a chat stays the plain chat it always was: no tools at all.
      const toolAccess =
        permissions.source === 'tool-config' ? s.toolAccess! : permissions.source === 'default' ? 'none' : ACCESS_OF[permissions.level];
      const settings: EffectiveSettings = {
        ...(s.model ? { model: s.model } : {}),
        ...(s.maxTurns ? { maxTurns: s.maxTurns } : {}),
        toolAccess,
      };
      return printTurn(options, request, ctx, settings, (info) => recordRateLimit(info, ctx.env));
    },

    dispose: () => login.close(),
  });
}
