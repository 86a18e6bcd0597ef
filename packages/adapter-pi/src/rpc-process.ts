import { randomUUID } from 'node:crypto';
import { endGracefully, parseJsonLine, spawnProcess, type RunningProcess, type WarmMember } from '@toolbridge/adapter-kit';
import { ProviderExecutionError } from '@toolbridge/core';
import { raceAbort, tail } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';

type Json = Record<string, unknown>;

/** What an RPC process is started with: argv, environment and working directory are fixed for its life. */
export interface RpcSpec {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Bound on start-up: spawn to the first `get_state` answer (0.6–0.7 s measured idle; much more on a loaded machine). */
const READY_TIMEOUT_MS = 30_000;
/** Bound on one command's answer (`new_session`, `switch_session`, `set_model`, ...). */
const COMMAND_TIMEOUT_MS = 15_000;

/**
 * One long-lived `pi --mode rpc` process: JSON lines in (`{id, type, ...}` commands), JSON lines
 * out (`{type:"response", id, success, data|error}` answers, agent events, and
 * `extension_ui_request`s of the permission extension). One turn at a time (the pool lends it to
 * one chat), so every event belongs to the turn running.
 */
export class RpcProcess implements WarmMember {
  /** The model the process uses now (`provider/id`), after `--model` or `set_model`. */
  model?: string;
  /** A turn is running (set from its start to its `agent_end`): a process left busy is not reused. */
  busy = false;
  private readonly proc: RunningProcess;
  private readonly pending = new Map<string, { resolve: (v: Json) => void; reject: (e: Error) => void }>();
  private events: Json[] = [];
  private wake?: () => void;
  private ended = false;
  private stderr = '';
  private readonly reader: Promise<void>;

  private constructor(readonly spec: RpcSpec) {
    this.proc = spawnProcess({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, interactive: true, toolId: TOOL_ID });
    this.reader = this.read();
  }

  /** Start a process and wait until it answers; a chat that gives up meanwhile (`signal`) ends it: nothing outlives a cancelled chat. */
  static async start(spec: RpcSpec, model: string | undefined, signal?: AbortSignal): Promise<RpcProcess> {
    const p = new RpcProcess(spec);
    p.model = model;
    try {
      const ready = AbortSignal.timeout(READY_TIMEOUT_MS);
      await p.request({ type: 'get_state' }, signal ? AbortSignal.any([ready, signal]) : ready);
      return p;
    } catch (e) {
      await p.close();
      throw e;
    }
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return !this.ended;
  }

  private async read(): Promise<void> {
    try {
      for await (const line of this.proc) this.dispatch(line);
      const exit = await this.proc.result;
      this.stderr = exit.stderrTail;
    } catch {
      // The run failed (killed, output cap): the process is gone either way.
    } finally {
      this.ended = true;
      const gone = new ProviderExecutionError(`Pi's RPC process ended${this.stderr.trim() ? `: ${tail(this.stderr.trim(), 500)}` : ''}`, {
        toolId: TOOL_ID,
        retryable: true,
      });
      for (const p of this.pending.values()) p.reject(gone);
      this.pending.clear();
      this.wake?.();
    }
  }

  private dispatch(line: string): void {
    const json = parseJsonLine(line);
    if (!json) return;
    if (json.type === 'response' && typeof json.id === 'string' && this.pending.has(json.id)) {
      const p = this.pending.get(json.id)!;
      this.pending.delete(json.id);
      p.resolve(json);
      return;
    }
    this.events.push(json);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Send a command; its answer's `data`. A `success: false` answer throws with Pi's error text. */
  async request(command: Json, signal: AbortSignal = AbortSignal.timeout(COMMAND_TIMEOUT_MS)): Promise<Json> {
    if (this.ended) throw new ProviderExecutionError("Pi's RPC process has ended", { toolId: TOOL_ID, retryable: true });
    const id = randomUUID();
    const answer = new Promise<Json>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    await this.proc.write(`${JSON.stringify({ ...command, id })}\n`);
    const response = await raceAbort(answer, signal).finally(() => this.pending.delete(id));
    if (response.success !== true) {
      throw new ProviderExecutionError(`Pi refused ${String(command.type)}: ${String(response.error ?? 'no reason given')}`, {
        toolId: TOOL_ID,
      });
    }
    return typeof response.data === 'object' && response.data !== null ? (response.data as Json) : {};
  }

  /** Send a line that has no answer (an `extension_ui_response`). */
  async send(line: Json): Promise<void> {
    if (!this.ended) await this.proc.write(`${JSON.stringify(line)}\n`);
  }

  /** Events not yet read (from before a turn started: none are expected), dropped. */
  clearEvents(): void {
    this.events = [];
  }

  /** The next event; undefined once the process has ended. */
  async next(signal: AbortSignal): Promise<Json | undefined> {
    for (;;) {
      const event = this.events.shift();
      if (event) return event;
      if (this.ended) return undefined;
      await raceAbort(new Promise<void>((r) => (this.wake = r)), signal);
    }
  }

  /** What stderr said before it ended (for the error of a turn it did not finish). */
  get stderrTail(): string {
    return this.stderr;
  }

  async close(): Promise<void> {
    if (!this.ended) await endGracefully(this.proc, 2_000);
    await this.reader;
  }

  kill(): void {
    this.proc.kill();
  }
}
