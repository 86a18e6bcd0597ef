import {
  ProviderExecutionError,
  spawnProcess,
  stripAnsi,
  ToolbridgeError,
  type AuthStartResult,
  type CallContext,
  type RunningProcess,
} from '@toolbridge/core';
import { cleanStderr, TOOL_ID } from './classify.js';

export interface LoginFlowOptions {
  command: string;
  /** The login is ended after this long, finished or not. */
  ttlMs: number;
  /** How long to wait for the sign-in URL before answering with what was printed. */
  firstOutputWaitMs: number;
}

interface OpenFlow {
  proc: RunningProcess;
  output: string;
  url?: string;
  startedAt: number;
}

/** The URL the user must open: a line that is only a URL, not the local callback server. */
function findUrl(output: string): string | undefined {
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (/^https?:\/\/\S+$/.test(line) && !/^https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(line)) return line;
  }
  return undefined;
}

/**
 * At most one `codex login` at a time. The login outlives the call that
 * started it (the user needs minutes in a browser) but never the TTL or
 * `dispose()`.
 */
export class LoginFlows {
  private flow?: OpenFlow;

  constructor(private readonly options: LoginFlowOptions) {}

  get open(): boolean {
    return this.flow !== undefined;
  }

  get pid(): number | undefined {
    return this.flow?.proc.pid;
  }

  private result(flow: OpenFlow, status: AuthStartResult['status']): AuthStartResult {
    const minutes = Math.round(this.options.ttlMs / 60_000);
    const within = minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(this.options.ttlMs / 1000)} seconds`;
    return {
      toolId: TOOL_ID,
      status,
      authenticated: false,
      command: `${this.options.command} login`,
      instructions:
        (flow.url
          ? `Open ${flow.url} in a browser on this machine and sign in with your ChatGPT account. `
          : 'Follow the output of `codex login` to sign in. ') +
        `The login waits for the browser to return to its local callback server for up to ${within}. ` +
        'On a headless machine run `codex login --device-auth` in a terminal instead, or `codex login --with-api-key`.',
      output: flow.output,
      ...(flow.url ? { url: flow.url } : {}),
      checkedAt: new Date().toISOString(),
    };
  }

  /** Start a login (or report the open one) and answer once its sign-in URL is printed. */
  async start(ctx: CallContext): Promise<AuthStartResult> {
    if (this.flow) return this.result(this.flow, 'in_progress');

    let raw = '';
    let seen: (() => void) | undefined;
    const onText = (text: string) => {
      raw += text;
      if (findUrl(stripAnsi(raw))) seen?.();
    };
    // Not tied to ctx.signal: the login must keep running after this call returns.
    const proc = spawnProcess({
      command: this.options.command,
      args: ['login'],
      env: ctx.env,
      timeoutMs: this.options.ttlMs,
      toolId: TOOL_ID,
      onStderr: onText,
    });
    const flow: OpenFlow = { proc, output: '', startedAt: Date.now() };
    this.flow = flow;
    // stdout is read too: some versions print the URL there.
    void (async () => {
      try {
        for await (const line of proc) onText(line + '\n');
      } catch {
        // ended by TTL or dispose; the result promise says how
      }
    })();
    const ended = proc.result.then(
      (r) => ({ exitCode: r.exitCode, error: undefined as unknown }),
      (error: unknown) => ({ exitCode: null as number | null, error }),
    );
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
        new Promise<'wait'>((resolve) => (timer = setTimeout(() => resolve('wait'), this.options.firstOutputWaitMs))),
        ended.then(() => 'ended' as const),
        new Promise<'aborted'>((resolve) => {
          onAbort = () => resolve('aborted');
          if (ctx.signal.aborted) resolve('aborted');
          else ctx.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      if (outcome === 'aborted') {
        proc.kill(ToolbridgeError.isInstance(ctx.signal.reason) ? ctx.signal.reason : undefined);
        await ended;
        throw ctx.signal.reason;
      }
      if (outcome === 'url') {
        // The hint lines after the URL come in the same burst; let them arrive.
        await new Promise((r) => setTimeout(r, 150));
      }
      flow.output = cleanStderr(stripAnsi(raw));
      flow.url = findUrl(flow.output);
      if (outcome === 'ended') {
        const { exitCode, error } = await ended;
        if (error) throw error;
        if (exitCode !== 0) {
          throw new ProviderExecutionError(`codex login exited with code ${exitCode}: ${flow.output || 'no output'}`, {
            toolId: TOOL_ID,
            details: { exitCode },
          });
        }
      }
      return this.result(flow, 'started');
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
    await flow.proc.result.catch(() => {});
  }
}
