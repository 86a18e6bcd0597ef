import { tmpdir } from 'node:os';
import {
  client,
  methods,
  ndJsonStream,
  RequestError,
  type ClientConnection,
  type InitializeResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { LineProcess } from './line-process.js';

/** What one session of the agent hears: its `session/update`s and its permission requests. */
export interface AcpSessionListener {
  update(notification: SessionNotification): void;
  permission(request: RequestPermissionRequest): Promise<RequestPermissionResponse>;
}

export interface AcpAgentLaunch {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Used in error messages and on errors. */
  toolId: string;
  /** The tool's name, for error messages. */
  name: string;
  /** Bound on start-up: spawn to `initialize` answered. */
  timeoutMs: number;
}

/** An ACP error answer as an Error whose message is the agent's own (its `code` kept). */
export class AcpRequestError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One agent process speaking the Agent Client Protocol on stdio (JSON-RPC 2.0, one message per
 * line), through the official SDK's client side. It serves any number of sessions at once; updates
 * and permission requests are routed to the session they name. The process runs in its own group
 * under the kit's runner (exit hook, group kill); the ACP agents seen here (gemini, copilot) exit
 * by themselves when their stdin closes, also when this process dies.
 */
export class AcpAgent extends LineProcess<never> {
  private readonly sessions = new Map<string, AcpSessionListener>();
  private connection!: ClientConnection;
  /** The agent's output for the SDK (as bytes again: the runner splits it into lines, capped in size). */
  private input!: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  /** Sessions this process holds in memory (made or loaded here): a later turn of one needs no `session/load`. */
  readonly live = new Set<string>();
  /** What `initialize` answered (capabilities such as `loadSession`, the agent's name and version). */
  info!: InitializeResponse;

  private constructor(private readonly launch: AcpAgentLaunch) {
    super({ command: launch.command, args: launch.args, env: launch.env, cwd: tmpdir() }, launch.toolId, 3000);
  }

  /** Spawn the agent and complete `initialize`; rejects (and leaves nothing running) when it does not come up. */
  static async start(launch: AcpAgentLaunch): Promise<AcpAgent> {
    const agent = new AcpAgent(launch);
    agent.connect();
    try {
      agent.info = await agent.request<InitializeResponse>(
        'initialize',
        {
          protocolVersion: 1,
          clientInfo: { name: 'toolbridge', title: 'Toolbridge', version: '1' },
          // Files and commands are the agent's own: Toolbridge is no editor.
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        },
        launch.timeoutMs,
      );
      return agent;
    } catch (e) {
      await agent.close();
      throw e;
    }
  }

  private connect(): void {
    const decoder = new TextDecoder();
    const input = new ReadableStream<Uint8Array>({ start: (controller) => void (this.input = controller) });
    const output = new WritableStream<Uint8Array>({
      write: (chunk) => this.write(decoder.decode(chunk, { stream: true })),
    });
    this.connection = client({ name: 'toolbridge' })
      .onNotification(methods.client.session.update, ({ params }) => {
        this.sessions.get(params.sessionId)?.update(params);
      })
      .onRequest(methods.client.session.requestPermission, async ({ params }) => {
        const listener = this.sessions.get(params.sessionId);
        // Nobody is there to answer (the turn ended): the request is cancelled, never allowed.
        return listener ? listener.permission(params) : { outcome: { outcome: 'cancelled' } };
      })
      .connect(ndJsonStream(output, input));
  }

  protected onLine(line: string): void {
    this.input.enqueue(this.encoder.encode(`${line}\n`));
  }

  protected onEnd(): void {
    this.input.close();
    this.connection.close(this.exitError());
  }

  private exitError(): ProviderExecutionError {
    return new ProviderExecutionError(`${this.launch.name} (ACP) exited`, { toolId: this.launch.toolId, retryable: true });
  }

  override get alive(): boolean {
    return super.alive && !this.proc.exited;
  }

  /** The last of the agent's stderr (for a start-up failure's message; the adapter cleans it). */
  async stderrTail(): Promise<string> {
    const exit = await this.proc.result.catch(() => undefined);
    return exit?.stderrTail ?? '';
  }

  /** Send a request: its answer, an AcpRequestError for an error answer, a retryable error when the agent exits or `timeoutMs` passes. */
  async request<T = Record<string, unknown>>(method: string, params: unknown, timeoutMs?: number): Promise<T> {
    if (!this.alive) throw this.exitError();
    let timer: NodeJS.Timeout | undefined;
    const late =
      timeoutMs === undefined
        ? undefined
        : new Promise<never>((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new TimeoutError(`${this.launch.name} (ACP) did not answer ${method} within ${timeoutMs} ms`, {
                    toolId: this.launch.toolId,
                  }),
                ),
              timeoutMs,
            );
            timer.unref();
          });
    const answer = this.connection.agent.request<T>(method, params).catch((e: unknown) => {
      if (e instanceof RequestError) throw new AcpRequestError(method, e.code, e.message);
      throw this.alive ? e : this.exitError();
    });
    try {
      return await (late ? Promise.race([answer, late]) : answer);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  notify(method: string, params: unknown): void {
    if (this.alive) void this.connection.agent.notify(method, params).catch(() => undefined);
  }

  /** Hear one session's updates and permission requests; the returned function stops it. */
  onSession(sessionId: string, listener: AcpSessionListener): () => void {
    this.sessions.set(sessionId, listener);
    return () => {
      if (this.sessions.get(sessionId) === listener) this.sessions.delete(sessionId);
    };
  }
}
