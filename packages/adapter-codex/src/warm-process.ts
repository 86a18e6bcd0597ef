import { tmpdir } from 'node:os';
import { descendants, KeyedListeners, LineProcess, parseJsonLine, PendingRequests } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { cleanStderr, TOOL_ID } from './failures.js';

type Json = Record<string, unknown>;

/** A notification of the server (`{method, params}`; no `"jsonrpc"` field in this protocol). */
export interface Notification {
  method: string;
  params: Json;
}

/** Answers a server request of one thread (an approval request); undefined leaves it to the default answer. */
export type ThreadRequestHandler = (method: string, params: Json) => Promise<Json> | undefined;

/** How app-server asks about an MCP tool call (and passes an MCP server's own elicitations on). */
export const MCP_ELICITATION = 'mcpServer/elicitation/request';

/** An error answer of the server (`code` is -32600 for every error seen). */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A server request no thread handler took: approval requests are answered "decline" (a thread
 * without approvals sets `approvalPolicy: "never"`, so none should come); every other server
 * request gets an error. An unanswered server request would hang its turn forever.
 */
function answerServerRequest(method: string): { result: Json } | { error: { code: number; message: string } } {
  if (method === 'item/commandExecution/requestApproval' || method === 'item/fileChange/requestApproval')
    return { result: { decision: 'decline' } };
  if (method === 'execCommandApproval' || method === 'applyPatchApproval') return { result: { decision: 'denied' } };
  // An MCP tool's approval (or a server's own form, which nobody here could fill in).
  if (method === MCP_ELICITATION) return { result: { action: 'decline', content: null, _meta: null } };
  return { error: { code: -32601, message: `${method} is not supported by Toolbridge` } };
}

/**
 * One `codex app-server` (JSON-RPC over stdio, one JSON object per line) serving many threads at
 * once. Notifications are routed to the thread they name. The server exits by itself when its
 * stdin closes, also when this process dies (measured: in 50–600 ms, its command children within
 * 0.1 s), so it needs no orphan guard.
 */
export class AppServer extends LineProcess<never> {
  private readonly pending = new PendingRequests<Json>('');
  private readonly threads = new KeyedListeners<Notification>();
  private readonly requestHandlers = new Map<string, ThreadRequestHandler>();
  /** Its stdin is gone: it is dying (killed, crashed), though its exit may not have been seen yet. */
  private gone = false;
  /** A turn left a command running (an interrupt does not stop it): end the server once its turns are done. */
  recycling = false;
  /** The server's own processes once it is up (the shim and the native binary): anything more is a command. */
  private baseline = new Set<number>();

  private constructor(o: { command: string; args: readonly string[]; env: NodeJS.ProcessEnv }) {
    super({ command: o.command, args: ['app-server', ...o.args], env: o.env, cwd: tmpdir() }, TOOL_ID, 3000);
  }

  /** Spawn the server and complete the handshake (`initialize`, then `initialized`). */
  static async start(o: { command: string; args: readonly string[]; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<AppServer> {
    const server = new AppServer(o);
    try {
      // The originator Codex sends upstream is this name: the one `codex exec` sends, so the provider sees the same client on both transports.
      await server.request(
        'initialize',
        // `experimentalApi`: a thread with approvals asks for `rawResponseItem/completed` (see warm-approvals.ts).
        { clientInfo: { name: 'codex_exec', title: 'Toolbridge', version: '1' }, capabilities: { experimentalApi: true } },
        o.timeoutMs,
      );
      server.notify('initialized');
      server.baseline = new Set(descendants(server.pid));
      return server;
    } catch (e) {
      await server.close();
      throw e;
    }
  }

  override get alive(): boolean {
    return super.alive && !this.gone && !this.proc.exited;
  }

  protected onEnd(): void {
    const stderr = cleanStderr(this.exitInfo.stderrTail).split('\n').at(-1);
    this.pending.failAll(
      new ProviderExecutionError(`Codex's app-server exited${stderr ? `: ${stderr}` : ''}`, { toolId: TOOL_ID, retryable: true }),
    );
  }

  protected onLine(line: string): void {
    const msg = parseJsonLine(line);
    if (!msg) return;
    const id = msg.id;
    const method = msg.method;
    if (typeof method === 'string') {
      const params = (msg.params ?? {}) as Json;
      const threadId = typeof params.threadId === 'string' ? params.threadId : undefined;
      if (id !== undefined) {
        const handled = threadId ? this.requestHandlers.get(threadId)?.(method, params) : undefined;
        const answer = handled
          ? handled.then(
              (result) => ({ result }),
              () => answerServerRequest(method),
            )
          : Promise.resolve(answerServerRequest(method));
        void answer.then((a) => this.write(`${JSON.stringify({ id, ...a })}\n`)).catch(() => undefined);
        return;
      }
      if (threadId) this.threads.emit(threadId, { method, params });
      return;
    }
    if (typeof id === 'number') this.pending.settle(String(id), msg);
  }

  /** Send a request; its answer, an RpcError, or a retryable error when the server exits or `timeoutMs` passes. */
  async request(method: string, params: Json | null, timeoutMs?: number): Promise<Json> {
    const notRunning = () => new ProviderExecutionError(`Codex's app-server is not running`, { toolId: TOOL_ID, retryable: true });
    if (!this.alive) throw notRunning();
    const msg = await this.pending.request(
      (id) =>
        this.write(`${JSON.stringify({ id: Number(id), method, params })}\n`).catch(() => {
          this.gone = true;
          throw notRunning();
        }),
      {
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        late: () => new TimeoutError(`Codex's app-server did not answer ${method} within ${timeoutMs} ms`, { toolId: TOOL_ID }),
      },
    );
    const error = msg.error as { code?: number; message?: string } | undefined;
    if (error) throw new RpcError(method, error.code ?? 0, error.message ?? 'error');
    return (msg.result ?? {}) as Json;
  }

  notify(method: string, params?: Json): void {
    void this.write(`${JSON.stringify(params === undefined ? { method } : { method, params })}\n`).catch(() => undefined);
  }

  /**
   * Whether processes run under the server beyond its own (commands of the agent, their sandbox
   * helpers). Off Linux nothing can be seen, so the answer is yes: the caller then recycles.
   */
  hasStrayProcesses(): boolean {
    if (process.platform !== 'linux' || this.pid === undefined) return true;
    return descendants(this.pid).some((pid) => !this.baseline.has(pid));
  }

  /** Receive the notifications of one thread; the returned function stops it. */
  onThread(threadId: string, listener: (n: Notification) => void): () => void {
    return this.threads.on(threadId, listener);
  }

  /** Answer the server requests of one thread (its approvals); the returned function stops it. */
  onThreadRequest(threadId: string, handler: ThreadRequestHandler): () => void {
    this.requestHandlers.set(threadId, handler);
    return () => {
      if (this.requestHandlers.get(threadId) === handler) this.requestHandlers.delete(threadId);
    };
  }
}
