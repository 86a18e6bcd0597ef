import { LineProcess, parseJsonLine, PendingRequests, type LineProcessSpec } from '@toolbridge/adapter-kit';
import { ProviderExecutionError } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';

type Json = Record<string, unknown>;

/** What an RPC process is started with: argv, environment and working directory are fixed for its life. */
export type RpcSpec = LineProcessSpec;

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
export class RpcProcess extends LineProcess<Json> {
  /** The model the process uses now (`provider/id`), after `--model` or `set_model`. */
  model?: string;
  /** A turn is running (set from its start to its `agent_end`): a process left busy is not reused. */
  busy = false;
  private readonly pending = new PendingRequests<Json>();

  private constructor(spec: RpcSpec) {
    super(spec, TOOL_ID);
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

  protected onLine(line: string): void {
    const json = parseJsonLine(line);
    if (!json) return;
    if (json.type === 'response' && typeof json.id === 'string' && this.pending.settle(json.id, json)) return;
    this.deliver(json);
  }

  protected onEnd(): void {
    const why = this.stderrTail.trim();
    this.pending.failAll(
      new ProviderExecutionError(`Pi's RPC process ended${why ? `: ${tail(why, 500)}` : ''}`, { toolId: TOOL_ID, retryable: true }),
    );
  }

  /** Send a command; its answer's `data`. A `success: false` answer throws with Pi's error text. */
  async request(command: Json, signal: AbortSignal = AbortSignal.timeout(COMMAND_TIMEOUT_MS)): Promise<Json> {
    if (!this.alive) throw new ProviderExecutionError("Pi's RPC process has ended", { toolId: TOOL_ID, retryable: true });
    const response = await this.pending.request((id) => this.write(`${JSON.stringify({ ...command, id })}\n`), { signal });
    if (response.success !== true) {
      throw new ProviderExecutionError(`Pi refused ${String(command.type)}: ${String(response.error ?? 'no reason given')}`, {
        toolId: TOOL_ID,
      });
    }
    return typeof response.data === 'object' && response.data !== null ? (response.data as Json) : {};
  }

  /** Send a line that has no answer (an `extension_ui_response`). */
  async send(line: Json): Promise<void> {
    if (this.alive) await this.write(`${JSON.stringify(line)}\n`);
  }

  /** Events not yet read (from before a turn started: none are expected), dropped. */
  clearEvents(): void {
    this.clearQueue();
  }

  /** What stderr said before it ended (for the error of a turn it did not finish). */
  get stderrTail(): string {
    return this.exitInfo.stderrTail;
  }
}
