import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import {
  AGENT_CAPABILITIES,
  collectStream,
  InvalidRequestError,
  ProviderExecutionError,
  renderConversation,
  runProcess,
  spawnProcess,
  TimeoutError,
  ToolbridgeError,
  type AuthState,
  type CallContext,
  type ChatRequest,
  type ConfigKeySchema,
  type DetectResult,
  type StreamEvent,
  type ToolAdapter,
} from '@toolbridge/core';
import { classifyFailure, cleanStderr, TOOL_ID } from './classify.js';
import { CodexEventParser } from './events.js';
import { LoginFlows } from './login.js';
import { sessionModel } from './session-files.js';
import { readUsageLimits } from './usage-limits.js';

export const CODEX_SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type CodexSandboxMode = (typeof CODEX_SANDBOX_MODES)[number];

export interface CodexAdapterOptions {
  /** The Codex executable (default `codex`, looked up on the call's PATH). */
  command?: string;
  /**
   * Extra argv for `codex exec`, inserted just before the final `-` (e.g.
   * `['-c', 'model_provider=mock', ...]`). Never put a prompt here.
   */
  extraArgs?: readonly string[];
  /** Codex's home (default `$CODEX_HOME`, else `~/.codex`), where session logs are read from. */
  codexHome?: string;
  /**
   * Pass `--ephemeral` so Codex writes no session log (default false). The
   * usage windows come from those logs, so ephemeral runs never refresh them.
   */
  ephemeral?: boolean;
  /**
   * Let Codex snapshot the user's login shell before a run (default false).
   * The snapshot shell runs in its own session, beyond the reach of a
   * process-group kill, so it is off unless asked for.
   */
  shellSnapshot?: boolean;
  /** A `codex login` started by `startAuth()` is ended after this long (default 10 minutes). */
  loginTtlMs?: number;
  /** How long `startAuth()` waits for the login's sign-in URL (default 5 s). */
  loginOutputWaitMs?: number;
  /** Bound on `codex --version` and `codex login status` (default 10 s). */
  versionTimeoutMs?: number;
  /** Cap on one run's stdout (default 32 MiB); beyond it the run fails. */
  maxOutputBytes?: number;
  /** How many of the newest session files `usageLimits()` looks into (default 5). */
  usageMaxFiles?: number;
  /** How many bytes from the end of each session file `usageLimits()` reads (default 256 KiB). */
  usageTailBytes?: number;
}

export const codexConfigSchema: Readonly<Record<string, ConfigKeySchema>> = {
  codexModel: { type: 'string', minLength: 1, description: 'Model for Codex (`codex exec -m`); Codex picks its own default when unset.' },
  codexSandbox: {
    type: 'string',
    enum: CODEX_SANDBOX_MODES,
    description: 'Sandbox for commands Codex runs (`--sandbox`); default read-only.',
  },
};

const configuredModel = (ctx: CallContext): string | undefined =>
  typeof ctx.config.codexModel === 'string' && ctx.config.codexModel ? ctx.config.codexModel : undefined;

const configuredSandbox = (ctx: CallContext): CodexSandboxMode =>
  CODEX_SANDBOX_MODES.includes(ctx.config.codexSandbox as CodexSandboxMode) ? (ctx.config.codexSandbox as CodexSandboxMode) : 'read-only';

/** `codex exec` argv. The prompt is not in it: `-` makes Codex read it from stdin. */
export function buildExecArgs(opts: {
  sandbox: CodexSandboxMode;
  model?: string;
  ephemeral?: boolean;
  shellSnapshot?: boolean;
  extraArgs?: readonly string[];
}): string[] {
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--sandbox',
    opts.sandbox,
    ...(opts.model ? ['-m', opts.model] : []),
    ...(opts.ephemeral ? ['--ephemeral'] : []),
    // A config override rather than `--disable`: unknown keys are ignored, unknown flags are fatal.
    ...(opts.shellSnapshot ? [] : ['-c', 'features.shell_snapshot=false']),
    ...(opts.extraArgs ?? []),
    '-',
  ];
}

/** `codex login status` output (stderr) to an auth state. */
export function parseLoginStatus(output: string, exitCode: number | null): AuthState {
  const text = cleanStderr(output);
  if (/not logged in/i.test(text)) return { authenticated: false, detail: 'Codex is not logged in (run `codex login`)' };
  if (/logged in using chatgpt/i.test(text)) return { authenticated: true, method: 'chatgpt' };
  if (/api key configured/i.test(text)) return { authenticated: true, method: 'api_key' };
  const other = /logged in using (.+)/i.exec(text);
  if (other) return { authenticated: true, method: other[1]!.trim().toLowerCase().replace(/\s+/g, '_') };
  if (exitCode === 0) return { authenticated: true };
  // The text is Codex's own status line; a key fragment it prints is already masked.
  return { authenticated: false, detail: text.split('\n').at(-1) || `codex login status exited with code ${exitCode}` };
}

export function parseVersion(stdout: string): string | undefined {
  const m = /(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)/.exec(stdout);
  return m ? m[1] : stdout.trim() || undefined;
}

/** The error to surface when a run stops early: the caller's deadline or cancel wins. */
function failureOf(error: unknown, ctx: CallContext): ToolbridgeError {
  if (ctx.signal.aborted && ToolbridgeError.isInstance(ctx.signal.reason)) return ctx.signal.reason;
  if (ToolbridgeError.isInstance(error)) return error;
  return new ProviderExecutionError(`Codex failed: ${(error as Error)?.message ?? String(error)}`, { toolId: TOOL_ID, cause: error });
}

export function createCodexAdapter(options: CodexAdapterOptions = {}): ToolAdapter {
  const command = options.command ?? 'codex';
  const versionTimeoutMs = options.versionTimeoutMs ?? 10_000;
  const logins = new LoginFlows({
    command,
    ttlMs: options.loginTtlMs ?? 10 * 60_000,
    firstOutputWaitMs: options.loginOutputWaitMs ?? 5_000,
  });

  const codexHomeOf = (ctx: CallContext): string =>
    options.codexHome ?? (ctx.env.CODEX_HOME || path.join(ctx.env.HOME || homedir(), '.codex'));

  async function* stream(request: ChatRequest, ctx: CallContext): AsyncGenerator<StreamEvent> {
    const model = request.model ?? configuredModel(ctx);
    // A value starting with "-" would be read by Codex as another option.
    if (model?.startsWith('-')) throw new InvalidRequestError(`invalid Codex model name "${model}"`, { toolId: TOOL_ID });
    const sandbox = configuredSandbox(ctx);
    ctx.signal.throwIfAborted();
    const ownsCwd = !request.cwd;
    const cwd = request.cwd ?? (await mkdtemp(path.join(tmpdir(), 'toolbridge-codex-')));
    const parser = new CodexEventParser();
    let proc: ReturnType<typeof spawnProcess> | undefined;
    try {
      proc = spawnProcess({
        command,
        args: buildExecArgs({
          sandbox,
          model,
          ephemeral: options.ephemeral,
          shellSnapshot: options.shellSnapshot,
          extraArgs: options.extraArgs,
        }),
        stdin: renderConversation(request.messages),
        env: ctx.env,
        cwd,
        signal: ctx.signal,
        toolId: TOOL_ID,
        ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}),
      });
      for await (const line of proc) {
        for (const event of parser.push(line)) yield event;
        // Codex exits by itself after a failed turn; the message is what matters, so stop here.
        if (parser.failure !== undefined) throw classifyFailure(parser.failure);
      }
      const exit = await proc.result;
      if (exit.exitCode !== 0 || exit.signal) {
        const message =
          parser.failure ??
          parser.lastError ??
          (cleanStderr(exit.stderrTail) || `codex exited with ${exit.signal ?? `code ${exit.exitCode}`}`);
        throw classifyFailure(message, { stderrTail: exit.stderrTail, exitCode: exit.exitCode });
      }
      // A clean exit without turn.completed still counts when an answer came.
      const tailEvents: StreamEvent[] = [];
      parser.settle(tailEvents);
      yield* tailEvents;
      if (parser.answer === undefined) {
        const why = parser.nonJsonLines > 0 ? ` (${parser.nonJsonLines} output line(s) were not JSON events)` : '';
        const stderr = cleanStderr(exit.stderrTail);
        throw new ProviderExecutionError(`Codex finished without an answer${why}${stderr ? `: ${stderr}` : ''}`, {
          toolId: TOOL_ID,
          details: { exitCode: exit.exitCode, nonJsonLines: parser.nonJsonLines },
        });
      }
      const usedModel =
        model ??
        (parser.threadId && !options.ephemeral
          ? await sessionModel(codexHomeOf(ctx), parser.threadId, ctx.signal).catch(() => undefined)
          : undefined);
      yield {
        type: 'result',
        result: {
          message: { role: 'assistant', content: parser.answer },
          usage: parser.usage,
          ...(usedModel ? { model: usedModel } : {}),
          metadata: {
            ...(parser.threadId ? { threadId: parser.threadId } : {}),
            sandbox,
            ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
          },
        },
      };
    } catch (error) {
      throw failureOf(error, ctx);
    } finally {
      // No child outlives the call (core's runner also sweeps helpers Codex moves out of
      // its process group), and its scratch directory goes with it.
      if (proc) {
        proc.kill();
        await proc.result.catch(() => {});
      }
      if (ownsCwd) await rm(cwd, { recursive: true, force: true }).catch(() => {});
    }
  }

  const adapter: ToolAdapter = {
    id: TOOL_ID,
    name: 'Codex',
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    configSchema: codexConfigSchema,

    async detect(ctx) {
      const model = configuredModel(ctx);
      const models = model ? [model] : [];
      const base: DetectResult = { available: false, models, ...(model ? { defaultModel: model } : {}) };
      try {
        const r = await runProcess({
          command,
          args: ['--version'],
          env: ctx.env,
          signal: ctx.signal,
          timeoutMs: versionTimeoutMs,
          toolId: TOOL_ID,
          maxOutputBytes: 64 * 1024,
        });
        if (r.exitCode !== 0) {
          return {
            ...base,
            reason: `codex --version exited with code ${r.exitCode}${cleanStderr(r.stderrTail) ? `: ${cleanStderr(r.stderrTail)}` : ''}`,
          };
        }
        const version = parseVersion(r.stdout);
        return { ...base, available: true, ...(version ? { version } : {}) };
      } catch (e) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        const err = ToolbridgeError.isInstance(e) ? e : undefined;
        if (TimeoutError.isInstance(e)) return { ...base, reason: `codex --version did not answer within ${versionTimeoutMs} ms` };
        return { ...base, reason: err?.message ?? 'codex could not be run' };
      }
    },

    async checkAuth(ctx) {
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
    },

    async startAuth(ctx) {
      if (logins.open) return logins.start(ctx);
      const state = await adapter.checkAuth!(ctx);
      if (state.authenticated) {
        return {
          toolId: TOOL_ID,
          status: 'already_authenticated',
          authenticated: true,
          command: `${command} login`,
          instructions: `Codex is already logged in${state.method ? ` (${state.method})` : ''}; nothing to do. Run \`codex logout\` first to switch accounts.`,
          output: '',
          checkedAt: new Date().toISOString(),
        };
      }
      return logins.start(ctx);
    },

    async usageLimits(ctx) {
      return readUsageLimits(codexHomeOf(ctx), {
        signal: ctx.signal,
        ...(options.usageMaxFiles ? { maxFiles: options.usageMaxFiles } : {}),
        ...(options.usageTailBytes ? { tailBytes: options.usageTailBytes } : {}),
      });
    },

    stream,

    chat(request, ctx) {
      return collectStream(stream(request, ctx), 'codex');
    },

    async dispose() {
      await logins.close();
    },
  };
  return adapter;
}
