import {
  parseJsonLine,
  ProviderExecutionError,
  spawnProcess,
  stripAnsi,
  tail,
  type AuthStartResult,
  type AuthState,
  type ProcessResult,
  type RunningProcess,
} from '@toolbridge/core';
import { TOOL_ID } from './stream-parser.js';

/** Parse `claude auth status` (JSON by default; exit 1 when logged out is an answer, not a failure). */
export function parseAuthStatus(stdout: string): AuthState | undefined {
  const json = parseJsonLine(stdout.replace(/\s*\n\s*/g, ' '));
  if (!json || typeof json.loggedIn !== 'boolean') return undefined;
  const method = typeof json.authMethod === 'string' && json.authMethod !== 'none' ? json.authMethod : undefined;
  const plan = typeof json.subscriptionType === 'string' && json.subscriptionType ? json.subscriptionType : undefined;
  return {
    authenticated: json.loggedIn,
    ...(method ? { method } : {}),
    ...(plan ? { plan } : {}),
    ...(json.loggedIn ? {} : { detail: 'Claude Code is not logged in; run `claude auth login` or set ANTHROPIC_API_KEY' }),
  };
}

export const LOGIN_COMMAND = 'claude auth login';

const INSTRUCTIONS =
  'Open the URL in a browser on this machine and sign in to your Claude account; the login finishes by itself when the browser returns. ' +
  'If the page instead shows a code to paste, run `claude auth login` in a terminal and paste it there.';

const URL_PATTERN = /https:\/\/\S+/;

export interface LoginFlowOptions {
  command: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The flow is killed after this long, signed in or not. */
  ttlMs: number;
  /** How long startAuth waits for the login URL before answering with what it has. */
  urlWaitMs: number;
}

/**
 * One running `claude auth login`. It outlives the startAuth call (the user
 * needs time in the browser) but never its TTL or the adapter's dispose().
 */
export class LoginFlow {
  private readonly proc: RunningProcess;
  private output = '';
  private url?: string;
  /** Set once the process has exited: its result, or null when it was killed or failed to start. */
  private exit?: ProcessResult | null;
  readonly ended: Promise<void>;
  private urlSeen!: () => void;
  private readonly urlPromise = new Promise<void>((r) => (this.urlSeen = r));

  constructor(private readonly options: LoginFlowOptions) {
    const proc = spawnProcess({
      command: options.command,
      args: ['auth', 'login'],
      env: options.env,
      cwd: options.cwd,
      timeoutMs: options.ttlMs,
      toolId: TOOL_ID,
      killGraceMs: 1000,
      onStderr: (text) => this.take(text),
    });
    this.proc = proc;
    this.ended = (async () => {
      try {
        for await (const line of proc) this.take(line + '\n');
      } catch {
        // TTL, dispose or spawn failure: the flow is over either way.
      }
      this.exit = await proc.result.catch(() => null);
      this.urlSeen();
    })();
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  private take(text: string): void {
    this.output = (this.output + stripAnsi(text)).slice(-8192);
    const m = URL_PATTERN.exec(this.output);
    if (m && !this.url) {
      this.url = m[0];
      this.urlSeen();
    }
  }

  /** Wait until the URL shows, the flow ends, or `urlWaitMs` passes. */
  async started(signal: AbortSignal): Promise<AuthStartResult> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      this.urlPromise,
      new Promise<void>((r) => (timer = setTimeout(r, this.options.urlWaitMs))),
      new Promise<void>((r) => {
        onAbort = () => r();
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    if (timer) clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    const exit = this.exit;
    if (exit !== undefined && !this.url) {
      throw new ProviderExecutionError(
        `\`${LOGIN_COMMAND}\` ended before showing a login URL${exit ? ` (exit code ${exit.exitCode})` : ''}: ${tail(this.output, 600) || 'no output'}`,
        { toolId: TOOL_ID },
      );
    }
    return this.describe('started');
  }

  describe(status: AuthStartResult['status']): AuthStartResult {
    return {
      toolId: TOOL_ID,
      status,
      authenticated: false,
      command: LOGIN_COMMAND,
      instructions: this.url ? INSTRUCTIONS : `Run \`${LOGIN_COMMAND}\` in a terminal to sign in to Claude Code.`,
      output: this.output.trim(),
      ...(this.url ? { url: this.url } : {}),
      checkedAt: new Date().toISOString(),
    };
  }

  /** Kill the whole login process group and wait until it has exited. */
  async stop(): Promise<void> {
    this.proc.kill();
    await this.ended;
  }
}
