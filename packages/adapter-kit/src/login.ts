import { ProviderExecutionError, type AuthStartResult, type AuthState, type CallContext } from '@toolbridge/core';
import { abortReasonOf, tail } from '@toolbridge/core/runtime';
import { spawnProcess, type RunningProcess } from './runner.js';
import { stripAnsi } from './text.js';

export interface LoginSpec {
  toolId: string;
  /** Display name (`Codex`). */
  name: string;
  /** The executable and its login argv (`codex`, `['login']`). */
  command: string;
  args: readonly string[];
  /** The login is ended after this long, finished or not (default 10 minutes). */
  ttlMs?: number;
  /** How long `start()` waits for the sign-in URL before answering with what was printed (default 5 s). */
  urlWaitMs?: number;
  /** The URL the user must open, in the output so far (default: the first https URL that is not a local callback). */
  findUrl?: (output: string) => string | undefined;
  /** Lines of the output worth showing (default: all, ANSI stripped). */
  cleanOutput?: (output: string) => string;
  /** What to tell the user, with or without a URL. */
  instructions: (url: string | undefined, ttlText: string) => string;
  /** Said after "already logged in; nothing to do." (e.g. how to switch accounts). */
  alreadyLoggedInHint?: string;
}

interface Flow {
  proc: RunningProcess;
  output: string;
  url?: string;
  ended: Promise<{ exitCode: number | null; error?: unknown }>;
}

/** The first https URL on a line of its own that is not a local callback server. */
export function firstSignInUrl(output: string): string | undefined {
  for (const m of output.matchAll(/https:\/\/\S+/g)) {
    if (!/^https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(m[0])) return m[0];
  }
  return undefined;
}

/** "Already logged in" as a login start result. */
export function alreadyLoggedIn(toolId: string, name: string, command: string, state: AuthState, hint = ''): AuthStartResult {
  return {
    toolId,
    status: 'already_authenticated',
    authenticated: true,
    command,
    instructions: `${name} is already logged in${state.method ? ` (${state.method})` : ''}; nothing to do.${hint ? ` ${hint}` : ''}`,
    output: '',
    checkedAt: new Date().toISOString(),
  };
}

/**
 * `startAuth()` of a tool that logs in only inside its own interactive UI: nothing is started;
 * logged in already, or `manual` with the instructions the user follows in a terminal.
 */
export function manualLogin(toolId: string, name: string, command: string, state: AuthState, instructions: string): AuthStartResult {
  if (state.authenticated) return alreadyLoggedIn(toolId, name, command, state);
  return { toolId, status: 'manual', authenticated: false, command, instructions, output: '', checkedAt: new Date().toISOString() };
}

/** The `startAuth()` of such a tool from the words that tell the user what to do (naming the command to run). */
export function manualLoginOf(
  toolId: string,
  name: string,
  instructions: (command: string) => string,
): (command: string, state: AuthState) => AuthStartResult {
  return (command, state) => manualLogin(toolId, name, command, state, instructions(command));
}

/**
 * A tool's browser login run in the background. At most one at a time: a second `start()` joins
 * the open one (`in_progress`). The login outlives the call that started it (the user needs
 * minutes in a browser) but never its TTL or `close()`; it is not tied to the caller's signal.
 */
export class LoginManager {
  private flow?: Flow;
  private pending?: Promise<AuthStartResult>;
  private readonly ttlMs: number;

  constructor(private readonly spec: LoginSpec) {
    this.ttlMs = spec.ttlMs ?? 10 * 60_000;
  }

  get open(): boolean {
    return this.flow !== undefined;
  }

  get pid(): number | undefined {
    return this.flow?.proc.pid;
  }

  /**
   * Start the login unless one is open (then report it), or unless `checkAuth` says the user is
   * logged in already. Answers once the sign-in URL is printed (or after `urlWaitMs`).
   */
  async start(ctx: CallContext, checkAuth?: () => Promise<AuthState>): Promise<AuthStartResult> {
    if (this.pending) await this.pending.catch(() => undefined);
    if (this.flow) return this.describe(this.flow, 'in_progress');
    const pending = (async () => {
      if (checkAuth) {
        const state = await checkAuth();
        if (state.authenticated)
          return alreadyLoggedIn(this.spec.toolId, this.spec.name, this.command, state, this.spec.alreadyLoggedInHint);
      }
      return this.begin(ctx);
    })();
    this.pending = pending;
    try {
      return await pending;
    } finally {
      if (this.pending === pending) this.pending = undefined;
    }
  }

  private get command(): string {
    return [this.spec.command, ...this.spec.args].join(' ');
  }

  private describe(flow: Flow, status: AuthStartResult['status']): AuthStartResult {
    const minutes = Math.round(this.ttlMs / 60_000);
    const ttlText = minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(this.ttlMs / 1000)} seconds`;
    return {
      toolId: this.spec.toolId,
      status,
      authenticated: false,
      command: this.command,
      instructions: this.spec.instructions(flow.url, ttlText),
      output: flow.output,
      ...(flow.url ? { url: flow.url } : {}),
      checkedAt: new Date().toISOString(),
    };
  }

  private async begin(ctx: CallContext): Promise<AuthStartResult> {
    const findUrl = this.spec.findUrl ?? firstSignInUrl;
    const clean = (raw: string) => (this.spec.cleanOutput ?? ((s: string) => s.trim()))(stripAnsi(raw));
    let raw = '';
    let seen: (() => void) | undefined;
    const take = (text: string) => {
      raw = (raw + text).slice(-16_384);
      if (findUrl(stripAnsi(raw))) seen?.();
    };
    const proc = spawnProcess({
      command: this.spec.command,
      args: this.spec.args,
      env: ctx.env,
      timeoutMs: this.ttlMs,
      toolId: this.spec.toolId,
      killGraceMs: 1000,
      onStderr: take,
    });
    const ended = (async () => {
      try {
        for await (const line of proc) take(line + '\n');
      } catch {
        // ended by its TTL or close(); `result` says how
      }
      return proc.result.then(
        (r): { exitCode: number | null; error?: unknown } => ({ exitCode: r.exitCode }),
        (error: unknown) => ({ exitCode: null, error }),
      );
    })();
    const flow: Flow = { proc, output: '', ended };
    this.flow = flow;
    void ended.then(() => {
      if (this.flow === flow) this.flow = undefined;
    });

    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const outcome = await Promise.race([
        new Promise<'url'>((resolve) => {
          seen = () => resolve('url');
          if (findUrl(stripAnsi(raw))) resolve('url');
        }),
        new Promise<'wait'>((resolve) => (timer = setTimeout(() => resolve('wait'), this.spec.urlWaitMs ?? 5_000))),
        ended.then(() => 'ended' as const),
        new Promise<'aborted'>((resolve) => {
          onAbort = () => resolve('aborted');
          if (ctx.signal.aborted) resolve('aborted');
          else ctx.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      if (outcome === 'aborted') {
        const reason = abortReasonOf(ctx.signal, this.spec.toolId);
        proc.kill(reason);
        await ended;
        throw reason;
      }
      // The hint lines after the URL come in the same burst; let them arrive.
      if (outcome === 'url') await new Promise((r) => setTimeout(r, 150));
      flow.output = clean(raw);
      flow.url = findUrl(flow.output);
      if (outcome === 'ended' && !flow.url) {
        const { exitCode, error } = await ended;
        if (error) throw error;
        throw new ProviderExecutionError(
          `\`${this.command}\` ended before showing a login URL (exit code ${exitCode}): ${tail(flow.output, 600) || 'no output'}`,
          {
            toolId: this.spec.toolId,
            details: { exitCode },
          },
        );
      }
      return this.describe(flow, 'started');
    } catch (e) {
      await this.close();
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  /** End the open login, if any, and wait until its process has exited. */
  async close(): Promise<void> {
    const flow = this.flow;
    if (!flow) return;
    this.flow = undefined;
    flow.proc.kill();
    await flow.ended;
  }
}
