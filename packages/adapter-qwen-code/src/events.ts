import { classifyFailure, integerUsage, parseJsonLine, type LineProcessExit } from '@toolbridge/adapter-kit';
import type { ChatResult, StreamEvent, Usage } from '@toolbridge/core';
import { ActivityTracker, unknownStep } from './activity.js';
import { QWEN_FAILURES, qwenFailure } from './failures.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Qwen Code copies an OpenAI-style `prompt_tokens` (cached tokens inside it) into `input_tokens`
 * and the cached part into `cache_read_input_tokens`: it is a part of the input, as in Codex's usage.
 */
const CACHED = { cache_read_input_tokens: 'cached_input_tokens' };

/** Lines that are protocol, not steps of the agent. */
const QUIET_TYPES = new Set(['control_response', 'control_request', 'control_cancel_request', 'keep_alive']);

/**
 * Turns Qwen Code's stream-json lines of one turn (Claude-style: `system:init`, `stream_event`
 * partials, whole `assistant`/`user` messages, one `result`) into stream events and, at the end, a
 * ChatResult or a typed error. `done` tells a transport that the turn's `result` has arrived.
 */
export class QwenStreamParser {
  private model?: string;
  private sessionId?: string;
  private result?: Json;
  /** Message ids whose text came as partials (their whole message repeats it). */
  private readonly streamed = new Set<string>();
  private currentMessageId?: string;
  private lastTextMessageId?: string;
  private text = '';
  private usage: Usage | undefined;
  private jsonLines = 0;
  private otherLines = 0;
  private others = 0;
  private thoughts = 0;
  private readonly activities = new ActivityTracker();

  get done(): boolean {
    return this.result !== undefined;
  }

  /** The answer's text so far (for an interrupted turn). */
  get textSoFar(): string {
    return this.text;
  }

  get nativeSessionId(): string | undefined {
    return this.sessionId;
  }

  get modelName(): string | undefined {
    return this.model;
  }

  /** The stream events of one line (a `control_request` is the transport's: see `controlRequest`). */
  push(line: string): StreamEvent[] {
    if (line.trim() === '') return [];
    const event = parseJsonLine(line);
    if (!event) {
      this.otherLines++;
      return [];
    }
    this.jsonLines++;
    this.sessionId ??= str(event.session_id);
    // Sub-agent traffic is not the answer; the agent call itself is the step.
    if (event.parent_tool_use_id !== undefined && event.parent_tool_use_id !== null) return [];
    const type = str(event.type) ?? '';
    switch (type) {
      case 'system':
        if (event.subtype === 'init') {
          this.model = str(event.model) ?? this.model;
          this.sessionId = str(event.session_id) ?? this.sessionId;
          return [];
        }
        return [this.other(`system:${str(event.subtype) ?? ''}`, str(event.message))];
      case 'stream_event':
        return this.partial(obj(event.event));
      case 'assistant':
        return this.onAssistant(obj(event.message));
      case 'user':
        return this.onUser(obj(event.message));
      case 'result':
        this.result ??= event;
        return this.activities.unfinished().map((activity) => ({ type: 'activity', activity }));
      default:
        return QUIET_TYPES.has(type) ? [] : [this.other(type || 'unknown', undefined)];
    }
  }

  private other(rawType: string, detail: string | undefined): StreamEvent {
    return { type: 'activity', activity: unknownStep(`${rawType}-${++this.others}`, rawType, detail) };
  }

  private delta(messageId: string, text: string): StreamEvent[] {
    if (!text) return [];
    const out: StreamEvent[] = [];
    // Text of a later model call (after a tool call) starts a paragraph of its own.
    if (this.lastTextMessageId !== undefined && messageId !== this.lastTextMessageId) {
      out.push({ type: 'delta', text: '\n\n' });
      this.text += '\n\n';
    }
    this.lastTextMessageId = messageId;
    this.text += text;
    out.push({ type: 'delta', text });
    return out;
  }

  private partial(e: Json | undefined): StreamEvent[] {
    if (e?.type === 'message_start') {
      this.currentMessageId = str(obj(e.message)?.id);
      return [];
    }
    const delta = obj(e?.delta);
    if (e?.type !== 'content_block_delta' || delta?.type !== 'text_delta') return [];
    const id = this.currentMessageId ?? '';
    this.streamed.add(id);
    return this.delta(id, str(delta.text) ?? '');
  }

  private onAssistant(message: Json | undefined): StreamEvent[] {
    if (!message) return [];
    const id = str(message.id) ?? '';
    this.model ??= str(message.model);
    // Each model call of the turn, once: the result's usage also counts Qwen Code's background
    // memory extraction (a second model call after the answer), which is not the caller's turn.
    const usage = obj(message.usage);
    if (usage) this.usage = addUsage(this.usage, integerUsage(usage, CACHED));
    const out: StreamEvent[] = [];
    for (const block of Array.isArray(message.content) ? message.content : []) {
      const b = obj(block);
      if (b?.type === 'text') {
        if (!this.streamed.has(id)) out.push(...this.delta(id, str(b.text) ?? ''));
      } else if (b?.type === 'tool_use') {
        const activity = this.activities.onToolUse(b);
        if (activity) out.push({ type: 'activity', activity });
      } else if (b?.type === 'thinking') {
        const text = str(b.thinking) ?? '';
        if (text) {
          const activity = { id: `${id}-thinking-${++this.thoughts}`, kind: 'reasoning' as const, status: 'completed' as const };
          out.push({ type: 'activity', activity: { ...activity, title: text.split('\n')[0]!.slice(0, 80), text } });
        }
      }
    }
    return out;
  }

  private onUser(message: Json | undefined): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const block of Array.isArray(message?.content) ? message.content : []) {
      const b = obj(block);
      if (b?.type !== 'tool_result') continue;
      const activity = this.activities.onToolResult(b);
      if (activity) out.push({ type: 'activity', activity });
    }
    return out;
  }

  /** The final result, or the typed error the turn ended with. */
  finish(exit: LineProcessExit): ChatResult {
    const r = this.result;
    if (!r) throw classifyFailure(qwenFailure(undefined, exit, this.jsonLines === 0 && this.otherLines > 0), QWEN_FAILURES);
    if (r.is_error === true) {
      const message = str(obj(r.error)?.message) ?? str(r.result) ?? this.text;
      throw classifyFailure(qwenFailure(message || `ended with ${str(r.subtype) ?? 'an error'}`, exit), QWEN_FAILURES);
    }
    const structured = r.structured_result;
    const content = structured !== undefined ? JSON.stringify(structured) : (str(r.result) ?? this.text);
    const metadata: Record<string, unknown> = {};
    const put = (key: string, value: unknown) => {
      if (value !== undefined && value !== null) metadata[key] = value;
    };
    put('nativeSessionId', str(r.session_id) ?? this.sessionId);
    put('durationMs', num(r.duration_ms));
    put('durationApiMs', num(r.duration_api_ms));
    put('numTurns', num(r.num_turns));
    if (Array.isArray(r.permission_denials) && r.permission_denials.length > 0) put('permissionDenials', r.permission_denials.length);
    return {
      message: { role: 'assistant', content },
      usage: this.usage ?? integerUsage(r.usage, CACHED),
      ...(this.model ? { model: this.model } : {}),
      metadata,
    };
  }
}

function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return b;
  const out: Record<string, number> = { ...(a as Record<string, number>) };
  for (const [k, v] of Object.entries(b as Record<string, number>)) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v;
  return out as Usage;
}
