import { PendingRequests } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';
import { controlResponseLine } from './approvals.js';
import { controlLine } from './input.js';

type Json = Record<string, unknown>;

/** Bound on a control request's answer (`interrupt` answers in ~10 ms, `/clear` in ~60 ms). */
export const CONTROL_TIMEOUT_MS = 10_000;

/**
 * The control protocol of a stream-json Claude Code process (what the Agent SDK speaks):
 * requests carry an id and get one `control_response`. Claude Code's own `can_use_tool` requests
 * (approvals chats, `--permission-prompt-tool stdio`) go to `onToolUse`; any other request of
 * its, or one when nobody listens, is refused at once.
 */
export class ControlChannel {
  private readonly pending = new PendingRequests<Json>();
  /** Answers `can_use_tool` for the turn running now. */
  onToolUse?: (request: Json) => Promise<Json>;

  constructor(private readonly write: (line: string) => Promise<void>) {}

  /** Take a control line off the output; false for any other line. */
  handle(json: Json | undefined): boolean {
    if (json?.type === 'control_response') {
      const response = (json.response ?? {}) as Json;
      const id = String(response.request_id);
      if (response.subtype === 'success') this.pending.settle(id, (response.response ?? {}) as Json);
      else
        this.pending.fail(
          id,
          new ProviderExecutionError(`Claude Code refused a control request: ${String(response.error)}`, { toolId: TOOL_ID }),
        );
      return true;
    }
    if (json?.type === 'control_request') {
      const request = (json.request ?? {}) as Json;
      const refuse = () => {
        const refusal = { type: 'control_response', response: { subtype: 'error', request_id: json.request_id, error: 'not supported' } };
        return this.write(JSON.stringify(refusal) + '\n').catch(() => undefined);
      };
      const answering = request.subtype === 'can_use_tool' ? this.onToolUse?.(request) : undefined;
      // Never leave one of Claude Code's own requests hanging.
      if (!answering) void refuse();
      else void answering.then((response) => this.write(controlResponseLine(json.request_id, response)).catch(() => undefined), refuse);
      return true;
    }
    return false;
  }

  /** Send a request (`line` builds its text, for `initialize`) and wait for its answer. */
  async request(
    request: Json,
    timeoutMs = CONTROL_TIMEOUT_MS,
    line: (id: string) => string = (id) => controlLine(id, request),
  ): Promise<Json> {
    return this.pending.request((id) => this.write(line(id)), {
      timeoutMs,
      late: () =>
        new TimeoutError(`Claude Code did not answer ${String(request.subtype)} within ${timeoutMs} ms`, { toolId: TOOL_ID, timeoutMs }),
    });
  }

  /** The process ended: every request still waiting fails with `error`. */
  failAll(error: Error): void {
    this.pending.failAll(error);
  }
}
