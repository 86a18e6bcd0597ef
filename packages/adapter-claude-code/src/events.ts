import { integerUsage, parseJsonLine, type ProcessResult } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, tail, type Activity, type ChatResult, type StreamEvent, type ToolbridgeError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';
import { classifyFailure, type ApiFailure } from './failures.js';
import type { RateLimitInfo } from './usage-limits.js';

export { TOOL_ID };

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export interface ParsedLine {
  events: StreamEvent[];
  /** A `rate_limit_event`'s info, for the adapter to persist. */
  rateLimit?: RateLimitInfo;
}

/**
 * Turns Claude Code's stream-json lines into stream events and, at the end,
 * a ChatResult or a typed error. Success is decided by `is_error` on the
 * final `result` object; its `subtype` says "success" even on failures.
 */
export class StreamParser {
  private model?: string;
  private sessionId?: string;
  private result?: Json;
  private failure: ApiFailure = {};
  private rateLimit?: RateLimitInfo;
  private streamed = new Set<string>();
  private currentMessageId?: string;
  private lastTextMessageId?: string;
  private text = '';
  private jsonLines = 0;
  private otherLines = 0;
  /** Tool uses seen, by id, so their results can complete them. */
  private readonly tools = new Map<string, Activity>();
  private thoughts = 0;

  push(line: string): ParsedLine {
    if (line.trim() === '') return { events: [] };
    const event = parseJsonLine(line);
    if (!event) {
      this.otherLines++;
      return { events: [] };
    }
    this.jsonLines++;
    // Sub-agent traffic (Task tool) is not the answer.
    if (event.parent_tool_use_id !== undefined && event.parent_tool_use_id !== null) return { events: [] };
    switch (event.type) {
      case 'system':
        if (event.subtype === 'init') {
          this.model = str(event.model) ?? this.model;
          this.sessionId = str(event.session_id) ?? this.sessionId;
        }
        return { events: [] };
      case 'stream_event':
        return { events: this.onPartial(obj(event.event)) };
      case 'assistant':
        return { events: this.onAssistant(event) };
      case 'user':
        return { events: this.onUser(event) };
      case 'rate_limit_event': {
        const info = obj(event.rate_limit_info) as RateLimitInfo | undefined;
        if (!info) return { events: [] };
        this.rateLimit = info;
        return { events: [], rateLimit: info };
      }
      case 'result':
        this.result = event;
        return { events: [] };
      default:
        return { events: [] };
    }
  }

  private textDelta(messageId: string | undefined, text: string): StreamEvent[] {
    if (!text) return [];
    const out: StreamEvent[] = [];
    // Text of a later turn (after a tool call) starts a new paragraph.
    if (this.lastTextMessageId !== undefined && messageId !== this.lastTextMessageId) {
      out.push({ type: 'delta', text: '\n\n' });
      this.text += '\n\n';
    }
    this.lastTextMessageId = messageId;
    this.text += text;
    out.push({ type: 'delta', text });
    return out;
  }

  private onPartial(e: Json | undefined): StreamEvent[] {
    if (!e) return [];
    if (e.type === 'message_start') {
      this.currentMessageId = str(obj(e.message)?.id);
      return [];
    }
    if (e.type === 'content_block_delta') {
      const delta = obj(e.delta);
      if (delta?.type !== 'text_delta') return [];
      const id = this.currentMessageId ?? '';
      this.streamed.add(id);
      return this.textDelta(id, str(delta.text) ?? '');
    }
    return [];
  }

  private onAssistant(event: Json): StreamEvent[] {
    const message = obj(event.message);
    if (typeof event.error === 'string') {
      this.failure = {
        ...this.failure,
        error: event.error,
        status: num(event.api_error_status) ?? this.failure.status,
        apiError: str(event.api_error) ?? this.failure.apiError,
        message: this.failure.message ?? textOf(message),
        rateLimit: (obj(obj(event.api_error_params)?.rate_limit_info) as RateLimitInfo | undefined) ?? this.failure.rateLimit,
      };
      return [];
    }
    if (!message) return [];
    const id = str(message.id) ?? '';
    const model = str(message.model);
    if (!this.model && model && model !== '<synthetic>') this.model = model;
    const out: StreamEvent[] = [];
    for (const block of Array.isArray(message.content) ? message.content : []) {
      const b = obj(block);
      if (!b) continue;
      if (b.type === 'text' && !this.streamed.has(id)) out.push(...this.textDelta(id, str(b.text) ?? ''));
      else if (b.type === 'tool_use') {
        const activity = toolUseActivity(b);
        this.tools.set(activity.id, activity);
        out.push({ type: 'activity', activity });
      } else if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking) {
        const text = b.thinking;
        out.push({
          type: 'activity',
          activity: {
            id: `${id}-thinking-${++this.thoughts}`,
            kind: 'reasoning',
            status: 'completed',
            title: text.split('\n')[0]!.slice(0, 80),
            text,
          },
        });
      }
    }
    return out;
  }

  private onUser(event: Json): StreamEvent[] {
    const content = obj(event.message)?.content;
    const out: StreamEvent[] = [];
    for (const block of Array.isArray(content) ? content : []) {
      const b = obj(block);
      if (b?.type === 'tool_result') {
        const id = str(b.tool_use_id) ?? `tool-${this.tools.size}`;
        const started = this.tools.get(id) ?? toolUseActivity({ id, name: 'tool' });
        out.push({ type: 'activity', activity: withResult(started, b.is_error === true, resultText(b.content)) });
      }
    }
    return out;
  }

  /** The final result, or the typed error the run ended with. */
  finish(proc: ProcessResult): ChatResult {
    const r = this.result;
    if (!r) throw this.failureWithoutResult(proc);
    if (r.is_error === true) {
      throw classifyFailure(
        {
          error: this.failure.error,
          status: num(r.api_error_status) ?? this.failure.status,
          apiError: str(r.api_error) ?? this.failure.apiError,
          message: str(r.result) ?? this.failure.message,
          rateLimit: this.failure.rateLimit ?? this.rateLimit,
        },
        proc,
      );
    }
    const content = str(r.result) ?? this.text;
    const modelUsage = obj(r.modelUsage);
    const model = this.model ?? (modelUsage ? Object.keys(modelUsage)[0] : undefined);
    const metadata: Record<string, unknown> = {};
    const put = (key: string, value: unknown) => {
      if (value !== undefined && value !== null) metadata[key] = value;
    };
    put('nativeSessionId', str(r.session_id) ?? this.sessionId);
    put('totalCostUsd', num(r.total_cost_usd));
    put('durationMs', num(r.duration_ms));
    put('durationApiMs', num(r.duration_api_ms));
    put('numTurns', num(r.num_turns));
    put('stopReason', str(r.stop_reason));
    put('terminalReason', str(r.terminal_reason));
    if (Array.isArray(r.permission_denials) && r.permission_denials.length > 0) put('permissionDenials', r.permission_denials.length);
    return {
      message: { role: 'assistant', content },
      usage: integerUsage(r.usage),
      ...(model ? { model } : {}),
      metadata,
    };
  }

  private failureWithoutResult(proc: ProcessResult): ToolbridgeError {
    if (this.failure.error) return classifyFailure({ ...this.failure, rateLimit: this.failure.rateLimit ?? this.rateLimit }, proc);
    const stderr = tail(proc.stderrTail, 600);
    const how = proc.signal ? `was killed by ${proc.signal}` : proc.exitCode !== 0 ? `exited with code ${proc.exitCode}` : 'exited';
    const what = this.jsonLines === 0 && this.otherLines > 0 ? 'printed output that is not stream-json' : 'ended without a result';
    return new ProviderExecutionError(`Claude Code ${what} (it ${how})${stderr ? `: ${stderr}` : ''}`, {
      toolId: TOOL_ID,
      details: { exitCode: proc.exitCode, signal: proc.signal, stderrTail: proc.stderrTail },
    });
  }
}

/** How much of a tool's input and output an activity carries. */
const SUMMARY_CHARS = 2000;

/** A `tool_use` block as an activity (started). */
function toolUseActivity(b: Json): Activity {
  const id = str(b.id) ?? 'tool';
  const name = str(b.name) ?? 'tool';
  const input = obj(b.input);
  return {
    id,
    kind: 'tool_call',
    status: 'started',
    title: name,
    name,
    ...(input ? { input: tail(JSON.stringify(input), SUMMARY_CHARS) } : {}),
  };
}

/** The activity of a tool use once its result came back. */
function withResult(started: Activity, isError: boolean, output: string | undefined): Activity {
  const status = isError ? 'failed' : 'completed';
  if (started.kind === 'tool_call') return { ...started, status, ...(output ? { output: tail(output, SUMMARY_CHARS) } : {}) };
  return { ...started, status };
}

function resultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.map((c) => str(obj(c)?.text) ?? '').filter(Boolean);
  return parts.length ? parts.join('\n') : undefined;
}

function textOf(message: Json | undefined): string | undefined {
  if (!message || !Array.isArray(message.content)) return undefined;
  const parts = message.content.map((b) => str(obj(b)?.text) ?? '').filter(Boolean);
  return parts.length ? parts.join('') : undefined;
}
