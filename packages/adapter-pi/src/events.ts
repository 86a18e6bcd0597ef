import { type ChatResult, type StreamEvent, type ToolbridgeError } from '@toolbridge/core';
import { toolActivity } from './activity.js';
import { classifyErrorMessage } from './failures.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);

/**
 * Folds Pi's agent events (the same in `--mode json` lines and `--mode rpc`) into stream events
 * and one result. Text comes from `message_update` `text_delta` events' own `delta`: each update
 * also repeats the whole partial message, and that object is shared and already ahead of the delta
 * (the first delta of "Hello from mock" carried the whole text; measured with 0.73.1), so the
 * partial is never diffed. Usage and cost are summed over the turn's `message_end`s (one per model
 * call: a tool loop makes several). A provider failure is `stopReason:"error"` with `errorMessage`
 * (JSON mode still exits 0).
 */
export class PiTurn {
  private text = '';
  /** Text of earlier assistant messages of this turn (before a tool call), kept apart by a blank line. */
  private pendingBreak = false;
  private readonly tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  private cost = 0;
  private sawCost = false;
  private calls = 0;
  private readonly args = new Map<string, unknown>();
  sessionId: string | undefined;
  model: string | undefined;
  stopReason: string | undefined;
  error: ToolbridgeError | undefined;
  /** `agent_end` seen: the turn is over. */
  done = false;

  get sawText(): boolean {
    return this.text.length > 0;
  }

  accept(event: Rec): StreamEvent[] {
    switch (event.type) {
      case 'session':
        if (typeof event.id === 'string') this.sessionId = event.id;
        return [];
      case 'message_start':
        if (rec(event.message).role === 'assistant' && this.text) this.pendingBreak = true;
        return [];
      case 'message_update': {
        const e = rec(event.assistantMessageEvent);
        if (e.type !== 'text_delta' || typeof e.delta !== 'string' || !e.delta) return [];
        const text = (this.pendingBreak ? '\n\n' : '') + e.delta;
        this.pendingBreak = false;
        this.text += text;
        return [{ type: 'delta', text }];
      }
      case 'message_end':
        return this.messageEnd(rec(event.message));
      case 'tool_execution_start':
      case 'tool_execution_update':
      case 'tool_execution_end': {
        // Only the start carries `args` for sure (the end of 0.73.1 has none): kept by call id.
        const id = String(event.toolCallId ?? '');
        if (event.args !== undefined) this.args.set(id, event.args);
        const args = this.args.get(id);
        if (event.type === 'tool_execution_end') this.args.delete(id);
        return [{ type: 'activity', activity: toolActivity({ ...event, args }) }];
      }
      case 'agent_end':
        this.done = true;
        return [];
      default:
        return [];
    }
  }

  private messageEnd(message: Rec): StreamEvent[] {
    if (message.role !== 'assistant') return [];
    this.calls++;
    const usage = rec(message.usage);
    this.tokens.input += int(usage.input);
    this.tokens.output += int(usage.output);
    this.tokens.cacheRead += int(usage.cacheRead);
    this.tokens.cacheWrite += int(usage.cacheWrite);
    this.tokens.total += int(usage.totalTokens);
    const cost = rec(usage.cost).total;
    if (typeof cost === 'number' && Number.isFinite(cost)) {
      this.cost += cost;
      this.sawCost = true;
    }
    if (typeof message.model === 'string')
      this.model = typeof message.provider === 'string' ? `${message.provider}/${message.model}` : message.model;
    if (typeof message.stopReason === 'string') this.stopReason = message.stopReason;
    if (message.stopReason === 'error')
      this.error = classifyErrorMessage(typeof message.errorMessage === 'string' ? message.errorMessage : '');
    return [];
  }

  /** Whether the turn was aborted by Pi (`stopReason:"aborted"`). */
  get aborted(): boolean {
    return this.stopReason === 'aborted';
  }

  result(fallbackModel: string | undefined, metadata: Rec = {}): ChatResult {
    const model = this.model ?? fallbackModel;
    return {
      message: { role: 'assistant', content: this.text },
      // Pi counts cached input beside `input` (Anthropic style): core adds them up.
      usage: {
        input_tokens: this.tokens.input,
        cache_read_input_tokens: this.tokens.cacheRead,
        cache_creation_input_tokens: this.tokens.cacheWrite,
        output_tokens: this.tokens.output,
        total_tokens: this.tokens.total,
      },
      ...(model ? { model } : {}),
      metadata: {
        ...(this.sessionId ? { nativeSessionId: this.sessionId } : {}),
        ...(this.sawCost ? { costUsd: this.cost } : {}),
        modelCalls: this.calls,
        ...(this.stopReason ? { finishReason: this.stopReason } : {}),
        ...metadata,
      },
    };
  }
}
