import { classifyFailure, LineProcess, parseJsonLine, PendingRequests, type LineProcessSpec } from '@toolbridge/adapter-kit';
import { ProviderExecutionError } from '@toolbridge/core';
import { NAME, TOOL_ID } from './config.js';
import { QWEN_FAILURES, qwenFailure } from './failures.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** How a warm process is started: argv, environment and working directory are fixed for its life. */
export type ProcessSpec = LineProcessSpec;

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
export class QwenProcess extends LineProcess<string> {
  /** The Qwen Code session it holds now (from its last turn's lines). */
  session?: string;
  /** Whether it has answered a turn since start or the last `/clear`. */
  used = false;
  private readonly answers = new PendingRequests<Json>();

  private constructor(spec: ProcessSpec) {
    super(spec, TOOL_ID);
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

  protected onLine(line: string): void {
    const event = line.startsWith('{"type":"control_response"') ? parseJsonLine(line) : undefined;
    const response = obj(event?.response);
    if (typeof response?.request_id === 'string' && this.answers.settle(response.request_id, response)) return;
    this.deliver(line);
  }

  protected onEnd(): void {
    this.answers.failAll(this.failure ?? classifyFailure(qwenFailure(undefined, this.exitInfo), QWEN_FAILURES));
  }

  /** Send a control request and wait for its answer. */
  async request(request: Json, timeoutMs: number): Promise<Json> {
    const response = await this.answers.request((id) => this.write(controlLine(id, request)), {
      timeoutMs,
      late: () =>
        new ProviderExecutionError(`${NAME} did not answer ${String(request.subtype)} within ${timeoutMs} ms`, { toolId: TOOL_ID }),
    });
    if (response.subtype !== 'success')
      throw new ProviderExecutionError(`${NAME} refused ${String(request.subtype)}: ${String(response.error)}`, { toolId: TOOL_ID });
    return response;
  }
}
