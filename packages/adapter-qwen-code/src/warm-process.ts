import { randomUUID } from 'node:crypto';
import { endGracefully, parseJsonLine, spawnProcess, type RunningProcess, type WarmMember } from '@toolbridge/adapter-kit';
import { ProviderExecutionError } from '@toolbridge/core';
import { NAME, TOOL_ID } from './config.js';
import { failureWithoutResult, type ExitInfo } from './failures.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** How a warm process is started: argv, environment and working directory are fixed for its life. */
export interface ProcessSpec {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Bound on start-up (spawn to the `initialize` answer): Qwen Code's start took 2-26 s on this loaded machine. */
const READY_TIMEOUT_MS = 90_000;

/** A user message of its stream-json input (text only: 0.24.4 turns other blocks into JSON text). */
export const userLine = (text: string): string =>
  JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null }) + '\n';

/** A control request of its stream-json input (`initialize`, `interrupt`). */
export const controlLine = (requestId: string, request: Json): string =>
  JSON.stringify({ type: 'control_request', request_id: requestId, request }) + '\n';

/** The answer to one of its control requests (`can_use_tool`). */
export const controlAnswer = (requestId: string, response: Json): string =>
  JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } }) + '\n';

/**
 * One long-lived `qwen --input-format stream-json` process. Readiness is the answer to an
 * `initialize` control request. One turn at a time: `next()` hands its output lines to the chat
 * that holds it (control responses to our own requests are taken out here).
 */
export class QwenProcess implements WarmMember {
  /** The Qwen Code session it holds now (from its last turn's lines). */
  session?: string;
  /** Whether it has answered a turn since start or the last `/clear`. */
  used = false;
  private readonly proc: RunningProcess;
  private readonly lines: string[] = [];
  private wake?: () => void;
  private readonly answers = new Map<string, (response: Json) => void>();
  private ended = false;
  private exit: ExitInfo = { exitCode: null, signal: null, stderrTail: '' };
  private failure?: Error;

  private constructor(spec: ProcessSpec) {
    this.proc = spawnProcess({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, interactive: true, toolId: TOOL_ID });
    void this.read();
  }

  static async start(spec: ProcessSpec): Promise<QwenProcess> {
    const p = new QwenProcess(spec);
    try {
      await p.request({ subtype: 'initialize' }, READY_TIMEOUT_MS);
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

  get exitInfo(): ExitInfo {
    return this.exit;
  }

  private async read(): Promise<void> {
    try {
      for await (const line of this.proc) {
        const event = line.startsWith('{"type":"control_response"') ? parseJsonLine(line) : undefined;
        const response = obj(event?.response);
        const answer = typeof response?.request_id === 'string' ? this.answers.get(response.request_id) : undefined;
        if (answer) answer(response!);
        else this.lines.push(line);
        this.wake?.();
      }
      this.exit = await this.proc.result;
    } catch (e) {
      this.failure = e as Error;
    } finally {
      this.ended = true;
      for (const answer of this.answers.values()) answer({ subtype: 'error', error: 'process ended' });
      this.wake?.();
    }
  }

  /** Send a control request and wait for its answer. */
  async request(request: Json, timeoutMs: number): Promise<Json> {
    const id = randomUUID();
    const answered = new Promise<Json>((resolve) => this.answers.set(id, resolve));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_r, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ProviderExecutionError(`${NAME} did not answer ${String(request.subtype)} within ${timeoutMs} ms`, { toolId: TOOL_ID }),
          ),
        timeoutMs,
      );
    });
    try {
      await this.proc.write(controlLine(id, request));
      const response = await Promise.race([answered, timeout]);
      if (response.subtype !== 'success') {
        throw (
          this.failure ??
          (this.ended
            ? failureWithoutResult(this.exit, false)
            : new ProviderExecutionError(`${NAME} refused ${String(request.subtype)}: ${String(response.error)}`, { toolId: TOOL_ID }))
        );
      }
      return response;
    } finally {
      clearTimeout(timer);
      this.answers.delete(id);
    }
  }

  write(text: string): Promise<void> {
    return this.proc.write(text);
  }

  /** The next output line, or undefined when the process has ended (its exit in `exitInfo`). */
  async next(signal: AbortSignal): Promise<string | undefined> {
    while (this.lines.length === 0 && !this.ended) {
      if (signal.aborted) throw signal.reason;
      let onAbort: (() => void) | undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      });
      signal.removeEventListener('abort', onAbort!);
      this.wake = undefined;
    }
    return this.lines.shift();
  }

  async close(): Promise<void> {
    await endGracefully(this.proc, 2000);
    this.ended = true;
  }
}
