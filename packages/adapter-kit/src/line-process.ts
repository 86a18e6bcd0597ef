import { raceAbort } from '@toolbridge/core/runtime';
import { endGracefully } from './end-gracefully.js';
import { spawnProcess } from './runner.js';
import type { ProcessResult, RunningProcess } from './run-types.js';
import type { WarmMember } from './warm-pool.js';

/** How a process ended (its error's material). */
export type LineProcessExit = Pick<ProcessResult, 'exitCode' | 'signal' | 'stderrTail'>;

/** What a long-lived process is started with: argv, environment and working directory are fixed for its life. */
export interface LineProcessSpec {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Requests sent to a process and waiting for their answer, by id. An answer that comes after its
 * request gave up (a timeout, a cancelled chat) is dropped; the process ending fails every one.
 */
export class PendingRequests<A> {
  private readonly waiting = new Map<string, { resolve(answer: A): void; reject(e: Error): void }>();
  private seq = 0;

  /** `prefix`: what request ids start with before their number ('' gives plain numbers, as JSON-RPC servers expect). */
  constructor(private readonly prefix = 'tb_') {}

  /**
   * Send a request under a fresh id (`send` writes it) and wait for its answer; `late()` is the
   * error once `timeoutMs` has passed, and an abort of `signal` rejects with its reason.
   */
  async request(
    send: (id: string) => Promise<void>,
    bound: { timeoutMs?: number; late?: () => Error; signal?: AbortSignal } = {},
  ): Promise<A> {
    const id = `${this.prefix}${++this.seq}`;
    const answer = new Promise<A>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    let timer: NodeJS.Timeout | undefined;
    const late =
      bound.timeoutMs === undefined
        ? undefined
        : new Promise<never>((_r, reject) => {
            timer = setTimeout(() => reject(bound.late?.() ?? new Error(`no answer within ${bound.timeoutMs} ms`)), bound.timeoutMs);
            timer.unref();
          });
    try {
      await send(id);
      const answered = late ? Promise.race([answer, late]) : answer;
      return await (bound.signal ? raceAbort(answered, bound.signal) : answered);
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  /** The answer to request `id` came; false when nobody waits for it. */
  settle(id: string, answer: A): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.waiting.delete(id);
    waiting.resolve(answer);
    return true;
  }

  /** Request `id` failed (an error answer); false when nobody waits for it. */
  fail(id: string, error: Error): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.waiting.delete(id);
    waiting.reject(error);
    return true;
  }

  /** The process ended: every request still waiting fails with `error`. */
  failAll(error: Error): void {
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
  }
}

/**
 * A long-lived tool process speaking a line protocol on stdio (JSON lines in and out), written
 * once: spawned in its own group under the kit's runner, its output read line by line into
 * `onLine`, output meant for the turn running queued for `next()`, its exit recorded and announced
 * (`onEnd`), closed the polite way (`endGracefully`). A tool's process class says only what its
 * lines mean: which answer its requests, which belong to the turn.
 */
export abstract class LineProcess<T> implements WarmMember {
  protected readonly proc: RunningProcess;
  readonly #queue: T[] = [];
  #wake?: () => void;
  #ended = false;
  #exit: LineProcessExit = { exitCode: null, signal: null, stderrTail: '' };
  /** Why reading its output failed (killed, output cap), when it did. */
  protected failure?: Error;
  readonly #reader: Promise<void>;
  readonly #exitListeners = new Set<() => void>();

  /** `graceMs`: how long `close()` waits after closing stdin before it kills the group. */
  protected constructor(
    spec: LineProcessSpec,
    toolId: string,
    private readonly graceMs = 2_000,
  ) {
    this.proc = spawnProcess({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, interactive: true, toolId });
    this.#reader = this.read();
  }

  /** One output line (an answer to a request, or one for the turn: `deliver` it). */
  protected abstract onLine(line: string): void;

  /** The process ended (`exitInfo` says how): fail what waits on it. */
  protected abstract onEnd(): void;

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** False once its output ended (it exited, crashed or was killed). */
  get alive(): boolean {
    return !this.#ended;
  }

  /** How it ended (for the error of a turn it did not finish). */
  get exitInfo(): LineProcessExit {
    return this.#exit;
  }

  private async read(): Promise<void> {
    try {
      for await (const line of this.proc) this.onLine(line);
      this.#exit = await this.proc.result;
    } catch (e) {
      this.failure = e as Error;
    } finally {
      this.#ended = true;
      this.onEnd();
      this.#rouse();
      for (const l of [...this.#exitListeners]) l();
    }
  }

  /** Be told when it has ended (crash, kill, close); the returned function stops it. */
  onExit(listener: () => void): () => void {
    this.#exitListeners.add(listener);
    return () => this.#exitListeners.delete(listener);
  }

  /** Queue an item for the turn reading `next()`. */
  protected deliver(item: T): void {
    this.#queue.push(item);
    this.#rouse();
  }

  /** Wake whoever waits in `next()`. */
  #rouse(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Drop what is queued (output from before a turn started). */
  protected clearQueue(): void {
    this.#queue.length = 0;
  }

  /** The next queued item; undefined once the process has ended (or `alive` says so) and nothing is left. */
  async next(signal: AbortSignal): Promise<T | undefined> {
    for (;;) {
      if (this.#queue.length > 0) return this.#queue.shift();
      if (!this.alive) return undefined;
      await raceAbort(new Promise<void>((r) => (this.#wake = r)), signal);
    }
  }

  write(text: string): Promise<void> {
    return this.proc.write(text);
  }

  /** End it: close stdin (a stdio protocol tool then exits by itself), kill its group after the grace period, and wait. */
  async close(): Promise<void> {
    await endGracefully(this.proc, this.graceMs);
    await this.#reader;
  }

  /** Kill it now (a turn that could not be stopped). */
  kill(): void {
    this.proc.kill();
  }
}
