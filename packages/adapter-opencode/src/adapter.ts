import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AGENT_CAPABILITIES,
  collectStream,
  InvalidRequestError,
  renderConversation,
  runProcess,
  spawnProcess,
  tail,
  TimeoutError,
  ToolbridgeError,
  ToolUnavailableError,
  type AuthStartResult,
  type AuthState,
  type CallContext,
  type ChatRequest,
  type DetectResult,
  type StreamEvent,
  type ToolAdapter,
  type UsageLimits,
} from '@toolbridge/core';
import { authStateFor, isFreeProvider, parseAuthList } from './auth.js';
import { RunAccumulator } from './events.js';
import { exitFailure } from './failures.js';
import { configSchema, configuredModel, modelFor, parseModels, parseVersion, providerOf, TOOL_ID } from './model.js';
import { resolveOptions, type OpenCodeAdapterOptions, type ResolvedOptions } from './options.js';

/**
 * The OpenCode agent (`opencode` on PATH). Chats run
 * `opencode run --format json [-m provider/model]` with the conversation on
 * stdin, in a fresh temporary directory unless the request names one.
 */
export function createOpenCodeAdapter(options: OpenCodeAdapterOptions = {}): ToolAdapter {
  const o = resolveOptions(options);
  return {
    id: TOOL_ID,
    name: 'OpenCode',
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    configSchema,
    detect: (ctx) => detect(o, ctx),
    checkAuth: (ctx) => checkAuth(o, ctx),
    startAuth: (ctx) => startAuth(o, ctx),
    usageLimits: async (): Promise<UsageLimits> => ({ status: 'unavailable', reason: 'OpenCode does not expose usage limits locally' }),
    stream: (request, ctx) => stream(o, request, ctx),
    chat: (request, ctx) => collectStream(stream(o, request, ctx), 'opencode'),
  };
}

async function detect(o: ResolvedOptions, ctx: CallContext): Promise<DetectResult> {
  const common = { command: o.command, env: ctx.env, signal: ctx.signal, toolId: TOOL_ID };
  // `--version` (~1.2 s) and `models` (2–4 s) are independent: run them side by side.
  const [version, models] = await Promise.allSettled([
    runProcess({ ...common, args: ['--version'], timeoutMs: o.versionTimeoutMs }),
    runProcess({ ...common, args: ['models'], timeoutMs: o.modelsTimeoutMs }),
  ]);
  if (ctx.signal.aborted) throw ctx.signal.reason;
  if (version.status === 'rejected') {
    const e = version.reason;
    if (ToolUnavailableError.isInstance(e) && e.details?.notInstalled) {
      return { available: false, models: [], reason: `OpenCode is not installed ("${o.command}" was not found on PATH)` };
    }
    if (TimeoutError.isInstance(e))
      return { available: false, models: [], reason: `"${o.command} --version" did not answer within ${o.versionTimeoutMs} ms` };
    return {
      available: false,
      models: [],
      reason: ToolbridgeError.isInstance(e) ? e.message : `"${o.command} --version" could not be run`,
    };
  }
  const v = version.value;
  const parsed = v.exitCode === 0 ? parseVersion(v.stdout) : undefined;
  if (!parsed) {
    const why = v.exitCode === 0 ? 'printed no version' : `exited with code ${v.exitCode ?? v.signal}`;
    const err = tail(v.stderrTail, 300);
    return { available: false, models: [], reason: `"${o.command} --version" ${why}${err ? `: ${err}` : ''}` };
  }
  // A failing model listing does not make the tool unusable: chats still run with OpenCode's default.
  const listed = models.status === 'fulfilled' && models.value.exitCode === 0 ? parseModels(models.value.stdout) : [];
  const configured = configuredModel(ctx.config);
  const result: DetectResult = { available: true, version: parsed, models: listed };
  if (configured) {
    // The configured model is what chats use, so it is the default even when OpenCode does not list it.
    result.defaultModel = configured;
    if (!listed.includes(configured)) result.models = [configured, ...listed];
  } else if (listed.length > 0) {
    result.defaultModel = listed[0];
  }
  return result;
}

async function checkAuth(o: ResolvedOptions, ctx: CallContext): Promise<AuthState> {
  const model = configuredModel(ctx.config);
  if (isFreeProvider(providerOf(model))) {
    return { authenticated: true, method: 'none', detail: `${model} is a free OpenCode model; no login needed` };
  }
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

async function* stream(o: ResolvedOptions, request: ChatRequest, ctx: CallContext): AsyncGenerator<StreamEvent> {
  const model = modelFor(request.model, ctx.config);
  if (request.cwd !== undefined) await assertDirectory(request.cwd);
  const scratch = request.cwd === undefined ? await mkdtemp(path.join(tmpdir(), 'toolbridge-opencode-')) : undefined;
  try {
    const args = ['run', '--format', 'json', ...(model ? ['-m', model] : []), ...o.extraArgs];
    const proc = spawnProcess({
      command: o.command,
      args,
      // The prompt goes on stdin (never argv); stdin is closed after it, or `opencode run` waits for EOF.
      stdin: renderConversation(request.messages),
      env: ctx.env,
      cwd: request.cwd ?? scratch,
      signal: ctx.signal,
      toolId: TOOL_ID,
    });
    const run = new RunAccumulator();
    for await (const line of proc) {
      for (const event of run.accept(line)) yield event;
    }
    const exit = await proc.result;
    if (run.error) throw run.error;
    if (exit.exitCode !== 0 || exit.signal || !run.sawText) throw exitFailure(exit, run.sawText, run.unrecognisedLines);
    yield { type: 'result', result: run.result(model) };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => {});
  }
}

async function assertDirectory(dir: string): Promise<void> {
  const s = await stat(dir).catch(() => undefined);
  if (!s?.isDirectory()) throw new InvalidRequestError(`cwd "${dir}" is not an existing directory`, { toolId: TOOL_ID });
}
