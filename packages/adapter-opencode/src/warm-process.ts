import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { KeyedListeners, spawnProcess, stripAnsi, type RunningProcess, type WarmMember } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';
import { ServeClient, sessionOf, type ServeEvent } from './warm-client.js';

/** The line `opencode serve` prints once it listens (the SDK's `createOpencodeServer` waits for it too). */
const LISTENING = /^opencode server listening on (https?:\/\/\S+)/;
/** Port taken meanwhile: exit 1 with `ServeError` on stderr (~1.3 s, FACTS §1.1): try another port. */
const PORT_ATTEMPTS = 3;

export interface ServerSpec {
  command: string;
  env: NodeJS.ProcessEnv;
  /** Bound on start-up until the listening line (1.6–3.9 s measured, 15 s once on a loaded machine). */
  timeoutMs: number;
}

/** A free loopback port (bind :0, read it, close it); `--port 0` is not used: OpenCode then picks 4096, a user's own serve's port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * One `opencode serve` on 127.0.0.1 at a free port, behind a random Basic-auth password, run
 * under the kit's orphan guard (serve outlives its parent otherwise, even its stdin closing: FACTS
 * §1.1), with one `GET /global/event` connection whose events go to the session they name.
 */
export class OpenCodeServer implements WarmMember {
  private readonly listeners = new KeyedListeners<ServeEvent>();
  private readonly exitListeners = new Set<() => void>();
  private readonly stop = new AbortController();
  private gone = false;
  /** The directories it has served: OpenCode keeps an instance (~60–150 MB) per directory, never freed. */
  readonly directories = new Set<string>();

  private constructor(
    private readonly proc: RunningProcess,
    readonly client: ServeClient,
  ) {}

  static async start(spec: ServerSpec): Promise<OpenCodeServer> {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const password = randomBytes(24).toString('base64url');
      const proc = spawnProcess({
        command: spec.command,
        args: ['serve', '--hostname', '127.0.0.1', '--port', String(port)],
        orphanGuard: true,
        // Our own user name too: one the user set for their own serve would not match our header.
        env: { ...spec.env, OPENCODE_SERVER_PASSWORD: password, OPENCODE_SERVER_USERNAME: 'opencode' },
        cwd: tmpdir(),
        toolId: TOOL_ID,
      });
      const lines = proc[Symbol.asyncIterator]();
      const url = await listeningUrl(lines, spec.timeoutMs).catch((e) => {
        proc.kill();
        throw e;
      });
      if (!url) {
        const exit = await proc.result;
        if (/ServeError/.test(exit.stderrTail) && attempt < PORT_ATTEMPTS) continue;
        const why = tail(stripAnsi(exit.stderrTail).trim(), 300);
        throw new ProviderExecutionError(`opencode serve exited before it listened (code ${exit.exitCode})${why ? `: ${why}` : ''}`, {
          toolId: TOOL_ID,
        });
      }
      const server: OpenCodeServer = new OpenCodeServer(proc, new ServeClient(url, password, () => server.markGone()));
      void server.drain(lines);
      try {
        const { ended } = await server.client.subscribe((e) => server.dispatch(e), server.stop.signal, spec.timeoutMs);
        // Without its events no turn can end: a server whose stream stops is ended and replaced.
        void ended.then(() => server.markGone());
      } catch (e) {
        await server.close();
        throw e;
      }
      return server;
    }
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return !this.gone && !this.proc.exited;
  }

  /** Read stdout to its end (so the pipe never fills); its end is the server's. */
  private async drain(lines: AsyncIterator<string>): Promise<void> {
    try {
      while (!(await lines.next()).done);
    } catch {
      // killed or crashed
    }
    this.markGone();
  }

  private markGone(): void {
    if (this.gone) return;
    this.gone = true;
    this.stop.abort();
    // A server that lost its event stream but still runs is ended: it cannot be trusted with a turn.
    if (!this.proc.exited) this.proc.kill();
    for (const l of [...this.exitListeners]) l();
  }

  private dispatch(e: ServeEvent): void {
    const id = sessionOf(e);
    if (id) this.listeners.emit(id, e);
  }

  /** Receive one session's events; the returned function stops it. */
  onSession(sessionId: string, listener: (e: ServeEvent) => void): () => void {
    return this.listeners.on(sessionId, listener);
  }

  /** Be told when the server goes (crash, kill, close); the returned function stops it. */
  onExit(listener: () => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** End the server's whole process group (serve exits on SIGTERM in 40–80 ms) and wait until it is gone. */
  async close(): Promise<void> {
    this.stop.abort();
    this.proc.kill();
    await this.proc.result.catch(() => undefined);
    this.markGone();
  }
}

/** The URL from the listening line; undefined when the process exits first; TimeoutError after `timeoutMs`. */
async function listeningUrl(lines: AsyncIterator<string>, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TimeoutError(`opencode serve did not start listening within ${timeoutMs} ms`, { toolId: TOOL_ID, timeoutMs })),
      timeoutMs,
    );
  });
  try {
    for (;;) {
      const next = await Promise.race([lines.next(), timeout]);
      if (next.done) return undefined;
      const m = LISTENING.exec(next.value);
      if (m) return m[1]!.replace(/\/$/, '');
    }
  } finally {
    clearTimeout(timer);
  }
}
