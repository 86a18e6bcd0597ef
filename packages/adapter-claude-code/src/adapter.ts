import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AGENT_CAPABILITIES,
  collectStream,
  InvalidRequestError,
  ProviderExecutionError,
  renderConversation,
  runProcess,
  spawnProcess,
  tail,
  TimeoutError,
  ToolUnavailableError,
  type AuthStartResult,
  type AuthState,
  type CallContext,
  type ChatRequest,
  type ChatResult,
  type DetectResult,
  type StreamEvent,
  type ToolAdapter,
  type UsageLimits,
} from '@toolbridge/core';
import { buildChatArgs } from './argv.js';
import { LOGIN_COMMAND, LoginFlow, parseAuthStatus } from './auth.js';
import { claudeCodeConfigSchema, settingsFrom } from './config.js';
import { StreamParser, TOOL_ID } from './stream-parser.js';
import {
  defaultStateDir,
  readSnapshot,
  snapshotFromRateLimit,
  usageLimitsFrom,
  writeSnapshot,
  type RateLimitInfo,
} from './usage-limits.js';

export interface ClaudeCodeAdapterOptions {
  /** Executable to run (default `claude`, looked up on the call's PATH). */
  command?: string;
  /**
   * Where the last usage-limit snapshot is kept (default `$XDG_STATE_HOME/toolbridge`,
   * else `~/.local/state/toolbridge`, from the call's environment).
   */
  stateDir?: string;
  /** Lifetime of a `claude auth login` flow started by startAuth (default 10 minutes). */
  loginTtlMs?: number;
  /** How long startAuth waits for the login URL (default 5 s). */
  loginUrlWaitMs?: number;
  /**
   * Value of CLAUDE_CODE_MAX_RETRIES for chats (default 0). Claude Code's own
   * retries back off for minutes; retrying belongs to the caller's deadline
   * and the orchestrator's retry policy.
   */
  maxRetries?: number;
  /** Extra argv appended to every chat run (never put prompts here). */
  extraArgs?: readonly string[];
  /** Keep Claude Code's session transcript on disk (default false: `--no-session-persistence`). */
  persistSessions?: boolean;
  /**
   * How system messages reach Claude Code: `replace` its system prompt, or
   * `append` to it. `auto` (default) replaces when no tools are enabled (a
   * plain chat) and appends otherwise, keeping Claude Code's tool instructions.
   */
  systemPrompt?: 'auto' | 'replace' | 'append';
  /** Bound on `claude --version` (default 10 s). */
  detectTimeoutMs?: number;
  /** Bound on `claude auth status` (default 15 s). */
  authTimeoutMs?: number;
}

export const CLAUDE_CODE_MODEL_ALIASES: readonly string[] = ['sonnet', 'opus', 'haiku'];

function versionOf(stdout: string): string | undefined {
  const m = /\d+\.\d+\.\d+[^\s]*/.exec(stdout);
  return m ? m[0] : undefined;
}

class ClaudeCodeAdapter implements ToolAdapter {
  readonly id = TOOL_ID;
  readonly name = 'Claude Code';
  readonly type = 'agent' as const;
  readonly capabilities = AGENT_CAPABILITIES;
  readonly configSchema = claudeCodeConfigSchema;

  private readonly command: string;
  private flow?: LoginFlow;
  private pendingStart?: Promise<AuthStartResult>;
  /** Subscription type from the last `claude auth status`, for usage-limit snapshots. */
  private plan?: string;

  constructor(private readonly options: ClaudeCodeAdapterOptions) {
    this.command = options.command ?? 'claude';
    if (options.maxRetries !== undefined && (!Number.isInteger(options.maxRetries) || options.maxRetries < 0)) {
      throw new InvalidRequestError('maxRetries must be a non-negative integer', { toolId: TOOL_ID });
    }
  }

  private stateDir(env: NodeJS.ProcessEnv): string {
    return this.options.stateDir ?? defaultStateDir(env);
  }

  async detect(ctx: CallContext): Promise<DetectResult> {
    const settings = settingsFrom(ctx.config);
    const models = [...new Set([...(settings.model ? [settings.model] : []), ...CLAUDE_CODE_MODEL_ALIASES])];
    const timeoutMs = this.options.detectTimeoutMs ?? 10_000;
    let run;
    try {
      run = await runProcess({
        command: this.command,
        args: ['--version'],
        env: ctx.env,
        cwd: tmpdir(),
        signal: ctx.signal,
        timeoutMs,
        toolId: TOOL_ID,
        maxOutputBytes: 64 * 1024,
      });
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (ToolUnavailableError.isInstance(e)) return { available: false, models: [], reason: e.message };
      if (TimeoutError.isInstance(e)) {
        return { available: false, models: [], reason: `\`${this.command} --version\` did not answer within ${timeoutMs} ms` };
      }
      throw e;
    }
    const version = versionOf(run.stdout);
    if (run.exitCode !== 0 || !version) {
      const why = run.exitCode !== 0 ? `exited with code ${run.exitCode ?? run.signal}` : 'printed no version';
      const stderr = tail(run.stderrTail, 300);
      return { available: false, models: [], reason: `\`${this.command} --version\` ${why}${stderr ? `: ${stderr}` : ''}` };
    }
    return { available: true, version, models, ...(settings.model ? { defaultModel: settings.model } : {}) };
  }

  async checkAuth(ctx: CallContext): Promise<AuthState> {
    const run = await runProcess({
      command: this.command,
      args: ['auth', 'status', '--json'],
      env: ctx.env,
      cwd: tmpdir(),
      signal: ctx.signal,
      timeoutMs: this.options.authTimeoutMs ?? 15_000,
      toolId: TOOL_ID,
      maxOutputBytes: 256 * 1024,
    });
    const state = parseAuthStatus(run.stdout);
    if (!state) {
      const stderr = tail(run.stderrTail, 300);
      throw new ProviderExecutionError(
        `\`${this.command} auth status\` gave no readable answer (exit code ${run.exitCode})${stderr ? `: ${stderr}` : ''}`,
        { toolId: TOOL_ID },
      );
    }
    if (state.plan) this.plan = state.plan;
    return state;
  }

  async startAuth(ctx: CallContext): Promise<AuthStartResult> {
    // One flow per tool: a second caller joins the first instead of starting another.
    if (this.pendingStart) await this.pendingStart.catch(() => undefined);
    if (this.flow) return this.flow.describe('in_progress');
    const pending = this.beginLogin(ctx);
    this.pendingStart = pending;
    try {
      return await pending;
    } finally {
      if (this.pendingStart === pending) this.pendingStart = undefined;
    }
  }

  private async beginLogin(ctx: CallContext): Promise<AuthStartResult> {
    const state = await this.checkAuth(ctx);
    if (state.authenticated) {
      return {
        toolId: TOOL_ID,
        status: 'already_authenticated',
        authenticated: true,
        command: LOGIN_COMMAND,
        instructions: `Claude Code is already logged in${state.method ? ` (${state.method})` : ''}; nothing to do.`,
        output: '',
        checkedAt: new Date().toISOString(),
      };
    }
    const flow = new LoginFlow({
      command: this.command,
      env: ctx.env,
      cwd: tmpdir(),
      ttlMs: this.options.loginTtlMs ?? 10 * 60_000,
      urlWaitMs: this.options.loginUrlWaitMs ?? 5000,
    });
    this.flow = flow;
    void flow.ended.then(() => {
      if (this.flow === flow) this.flow = undefined;
    });
    try {
      return await flow.started(ctx.signal);
    } catch (e) {
      await flow.stop();
      throw e;
    }
  }

  async usageLimits(ctx: CallContext): Promise<UsageLimits> {
    return usageLimitsFrom(await readSnapshot(this.stateDir(ctx.env)), Date.now(), this.plan);
  }

  private async recordRateLimit(info: RateLimitInfo, env: NodeJS.ProcessEnv): Promise<void> {
    const dir = this.stateDir(env);
    const plan = this.plan ?? (await readSnapshot(dir))?.plan;
    const snapshot = snapshotFromRateLimit(info, { observedAt: new Date(), plan });
    if (!snapshot) return;
    // A state file we cannot write must not fail the chat that reported the windows.
    await writeSnapshot(dir, snapshot).catch(() => undefined);
  }

  async *stream(request: ChatRequest, ctx: CallContext): AsyncIterable<StreamEvent> {
    const settings = settingsFrom(ctx.config);
    if (request.cwd !== undefined) {
      const s = await stat(request.cwd).catch(() => undefined);
      if (!s?.isDirectory()) throw new InvalidRequestError(`cwd "${request.cwd}" is not a directory`, { toolId: TOOL_ID });
    }
    // Private per-run directory (mkdtemp: mode 0700) for the system prompt file and the default cwd.
    const runDir = await mkdtemp(path.join(tmpdir(), 'toolbridge-claude-'));
    try {
      let cwd = request.cwd;
      if (cwd === undefined) {
        cwd = path.join(runDir, 'work');
        await mkdir(cwd);
      }
      const system = request.messages
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n\n');
      let systemPromptFile: string | undefined;
      if (system.trim()) {
        systemPromptFile = path.join(runDir, 'system-prompt.md');
        await writeFile(systemPromptFile, system, { mode: 0o600 });
      }
      const mode = this.options.systemPrompt ?? 'auto';
      const args = buildChatArgs({
        settings,
        model: request.model,
        systemPromptFile,
        systemPromptMode: mode === 'auto' ? (settings.toolAccess === 'none' ? 'replace' : 'append') : mode,
        persistSession: this.options.persistSessions ?? false,
        extraArgs: this.options.extraArgs ?? [],
      });
      const proc = spawnProcess({
        command: this.command,
        args,
        stdin: renderConversation(request.messages, { includeSystem: false }),
        env: { ...ctx.env, CLAUDE_CODE_MAX_RETRIES: String(this.options.maxRetries ?? 0) },
        cwd,
        signal: ctx.signal,
        toolId: TOOL_ID,
      });
      const parser = new StreamParser();
      for await (const line of proc) {
        const { events, rateLimit } = parser.push(line);
        if (rateLimit) await this.recordRateLimit(rateLimit, ctx.env);
        for (const event of events) yield event;
      }
      const exit = await proc.result;
      yield { type: 'result', result: parser.finish(exit) };
    } finally {
      await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  chat(request: ChatRequest, ctx: CallContext): Promise<ChatResult> {
    return collectStream(this.stream(request, ctx), 'claude-code');
  }

  async dispose(): Promise<void> {
    await this.flow?.stop();
    this.flow = undefined;
  }
}

/** The Claude Code adapter (`claude-code`): drives the `claude` CLI in print mode. */
export function createClaudeCodeAdapter(options: ClaudeCodeAdapterOptions = {}): ToolAdapter {
  return new ClaudeCodeAdapter(options);
}
