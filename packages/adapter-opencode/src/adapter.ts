import { defineAdapter, parseVersionText, probeVersion, runProcess, stripAnsi } from '@toolbridge/adapter-kit';
import type { AuthStartResult, AuthState, CallContext, DetectResult, ToolAdapter, UsageLimits } from '@toolbridge/core';
import { authStateFor, isFreeProvider, parseAuthList } from './auth.js';
import { configuredModel, opencodeConfig, TOOL_ID } from './config.js';
import { parseModels, providerOf } from './models.js';
import { resolveOptions, type OpenCodeAdapterOptions, type ResolvedOptions } from './options.js';
import { ModelCatalogs } from './images.js';
import { SessionDirs } from './session-files.js';
import { chatTurn, OpenCodeWarm } from './warm.js';

/**
 * The OpenCode agent (`opencode` on PATH). Chats run `opencode run --format json [-m
 * provider/model]` with the conversation on stdin, in the working directory core chose,
 * continuing OpenCode's own sessions, with the permission level as OpenCode rules.
 */
export function createOpenCodeAdapter(options: OpenCodeAdapterOptions = {}): ToolAdapter {
  const o = resolveOptions(options);
  const catalogs = new ModelCatalogs(o.command, o.modelsTimeoutMs);
  const sessions = new SessionDirs();
  const warm = new OpenCodeWarm(o, catalogs, sessions);
  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: 'OpenCode',
    type: 'agent',
    config: opencodeConfig,
    features: {
      sessions: { resume: true, fork: true },
      images: true,
      activity: true,
      permissions: ['read-only', 'workspace-write', 'full'],
      additionalDirs: true,
      // Native on the warm path (serve's `format`, a schema only: see takesFormat); core asks in words otherwise.
      ...(o.warm ? { structuredOutput: 'native' as const, warm: true } : {}),
      // Both on the warm transport only: `opencode run` rejects every question itself and cannot be interrupted.
      ...(o.warm ? { approvals: true, interrupt: true } : {}),
      // In OPENCODE_CONFIG_CONTENT on both transports (mcp-servers.ts).
      mcpServers: true,
    },
    detect: (ctx) => detect(o, ctx),
    checkAuth: (ctx) => checkAuth(o, ctx),
    startAuth: (ctx) => startAuth(o, ctx),
    usageLimits: async (): Promise<UsageLimits> => ({ status: 'unavailable', reason: 'OpenCode does not expose usage limits locally' }),
    async *stream(request, ctx) {
      // Inside the generator: a bad model fails the stream, never the call that creates it.
      yield* chatTurn(warm, o, request, ctx, catalogs, sessions);
    },
    takesFormat: (format, ctx) => warm.takesFormat(format, ctx),
    prewarm: (ctx) => warm.prewarm(ctx),
    warmLoad: () => warm.load(),
    dispose: () => warm.close(),
  });
}

async function detect(o: ResolvedOptions, ctx: CallContext): Promise<DetectResult> {
  // `--version` (~1.2 s) and `models` (2–4 s) are independent: run them side by side.
  const [version, models] = await Promise.all([
    probeVersion(ctx, {
      command: o.command,
      toolId: TOOL_ID,
      timeoutMs: o.versionTimeoutMs,
      parse: (out) => parseVersionText(stripAnsi(out)),
    }),
    runProcess({
      command: o.command,
      // `--verbose` adds each model's capabilities (image input for `vision`); same time as without.
      args: ['models', '--verbose'],
      env: ctx.env,
      signal: ctx.signal,
      toolId: TOOL_ID,
      timeoutMs: o.modelsTimeoutMs,
    }).catch((e) => {
      if (ctx.signal.aborted) throw e;
      return undefined;
    }),
  ]);
  if (!version.available) return { available: false, models: [], reason: version.reason };
  // A failing model listing does not make the tool unusable: chats still run with OpenCode's default.
  const listingFailed = !models || models.exitCode !== 0;
  const catalog = listingFailed ? { models: [], vision: new Set<string>() } : parseModels(models.stdout);
  const listed = catalog.models;
  const configured = configuredModel(ctx.config);
  const result: DetectResult = { available: true, version: version.version, models: listed };
  if (configured) {
    // The configured model is what chats use, so it is the default even when OpenCode does not list it.
    result.defaultModel = configured;
    if (!listed.includes(configured)) result.models = [configured, ...listed];
  } else if (listed.length > 0) {
    result.defaultModel = listed[0];
  }
  if (result.defaultModel && catalog.vision.has(result.defaultModel)) result.capabilities = ['vision'];
  // A listing that failed (`models --verbose` timed out under load) says nothing about models or images:
  // unknown, never "none" (core keeps the last good answer, or lets a chat with an image try).
  if (listingFailed) result.unknown = configured ? ['models', 'capabilities'] : ['models', 'defaultModel', 'capabilities'];
  return result;
}

async function checkAuth(o: ResolvedOptions, ctx: CallContext): Promise<AuthState> {
  const model = configuredModel(ctx.config);
  // Run for free models too: the login row says which providers have credentials.
  const r = await runProcess({
    command: o.command,
    args: ['auth', 'list'],
    env: ctx.env,
    signal: ctx.signal,
    timeoutMs: o.authTimeoutMs,
    toolId: TOOL_ID,
  });
  return authStateFor(model, parseAuthList(r.stdout), ctx.env);
}

async function startAuth(o: ResolvedOptions, ctx: CallContext): Promise<AuthStartResult> {
  // `opencode auth login` is an interactive picker that hangs without a terminal: never spawn it.
  let authenticated = false;
  try {
    authenticated = (await checkAuth(o, ctx)).authenticated;
  } catch {
    // An unknown login state is reported as not logged in; only the caller's deadline is an error here.
    if (ctx.signal.aborted) throw ctx.signal.reason;
  }
  const command = `${o.command} auth login`;
  const provider = providerOf(configuredModel(ctx.config));
  const pick = provider && !isFreeProvider(provider) ? `, pick the provider "${provider}"` : ', pick your provider';
  return {
    toolId: TOOL_ID,
    status: 'manual',
    authenticated,
    command,
    instructions:
      `OpenCode's login is interactive and needs a terminal. Run "${command}" in a terminal${pick} and follow its prompts ` +
      `(API key or browser sign-in); credentials are stored in $XDG_DATA_HOME/opencode/auth.json (default ~/.local/share/opencode). ` +
      `Free opencode/* models need no login.` +
      (authenticated ? ' OpenCode is already logged in for the configured model.' : ''),
    output: '',
    checkedAt: new Date().toISOString(),
  };
}
