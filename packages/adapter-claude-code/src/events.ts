import { classifyFailure, integerUsage, parseJsonLine, type LineProcessExit } from '@toolbridge/adapter-kit';
import type { ChatResult, StreamEvent } from '@toolbridge/core';
import { ActivityTracker, STRUCTURED_TOOL } from './activity.js';
import { TOOL_ID } from './config.js';
import { CLAUDE_FAILURES, claudeFailure, type ApiFailure } from './failures.js';
import { structuredText } from './structured.js';
import { TextStream } from './text-stream.js';
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

/** Protocol lines that are not steps of the agent: never reported as activity. */
const QUIET_TYPES = new Set([
  'control_response',
  'control_request',
  'control_cancel_request',
  'conversation_reset',
  'command_lifecycle',
  'keep_alive',
  'prompt_suggestion',
  'streamlined_text',
  'streamlined_tool_use_summary',
]);
const QUIET_SYSTEM = new Set([
  'init',
  'status',
  'thinking_tokens',
  'background_tasks_changed',
  'task_started',
  'task_updated',
  'task_progress',
  'task_notification',
  'hook_started',
  'hook_progress',
  'hook_response',
]);

export interface ParserOptions {
  /** A JSON answer was asked for through `StructuredOutput`; `wrapped` when the schema was wrapped in an object. */
  structured?: { wrapped: boolean };
}

/**
 * Turns the stream-json lines of one turn into stream events and, at the end, a ChatResult or a
 * typed error. Success is decided by `is_error` on the final `result` object; its `subtype` says
 * "success" even on failures. `done` tells a transport that the turn's `result` has arrived.
 */
export class StreamParser {
  private model?: string;
  private sessionId?: string;
  private result?: Json;
  private failure: ApiFailure = {};
  private rateLimit?: RateLimitInfo;
  private readonly text = new TextStream();
  private jsonLines = 0;
  private otherLines = 0;
  private others = 0;
  private thoughts = 0;
  private structuredInput?: unknown;
  private readonly activities = new ActivityTracker();
  /** Background jobs the turn started (they outlive its answer). */
  backgroundJobs = 0;

  constructor(private readonly options: ParserOptions = {}) {}

  get done(): boolean {
    return this.result !== undefined;
  }

  push(line: string): ParsedLine {
    if (line.trim() === '') return { events: [] };
    const event = parseJsonLine(line);
    if (!event) {
      this.otherLines++;
      return { events: [] };
    }
    this.jsonLines++;
    // Sub-agent traffic (Agent tool) is not the answer; the Agent call itself is the step.
    if (event.parent_tool_use_id !== undefined && event.parent_tool_use_id !== null) return { events: [] };
    const type = str(event.type) ?? '';
    switch (type) {
      case 'system':
        return { events: this.onSystem(event) };
      case 'stream_event':
        return { events: this.text.partial(obj(event.event), str(obj(event.abandoned_blocks)?.api_message_id)) };
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
        this.result ??= event;
        return { events: [] };
      default:
        return { events: QUIET_TYPES.has(type) ? [] : [this.other(type || 'unknown', undefined)] };
    }
  }

  private other(rawType: string, detail: string | undefined): StreamEvent {
    const id = `${rawType}-${++this.others}`;
    return {
      type: 'activity',
      activity: { id, kind: 'other', status: 'completed', title: rawType, rawType, ...(detail ? { detail } : {}) },
    };
  }

  private onSystem(event: Json): StreamEvent[] {
    const subtype = str(event.subtype) ?? '';
    if (subtype === 'init') {
      this.model = str(event.model) ?? this.model;
      this.sessionId = str(event.session_id) ?? this.sessionId;
      this.activities.cwd = str(event.cwd) ?? this.activities.cwd;
    } else if (subtype === 'task_started') {
      if (event.is_backgrounded === true) this.backgroundJobs++;
    } else if (subtype === 'permission_denied') {
      const id = str(event.tool_use_id);
      if (id) this.activities.onDenied(id, str(event.message) ?? str(event.decision_reason) ?? 'not allowed');
    } else if (!QUIET_SYSTEM.has(subtype)) return [this.other(`system:${subtype}`, str(event.message))];
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
      if (b.type === 'text') {
        out.push(...this.text.whole(id, str(b.text) ?? ''));
      } else if (b.type === 'tool_use') {
        if (b.name === STRUCTURED_TOOL) this.structuredInput = b.input;
        const activity = this.activities.onToolUse(b);
        if (activity) out.push({ type: 'activity', activity });
      } else if (b.type === 'thinking') {
        const text = str(b.thinking) ?? '';
        if (!text) continue;
        const title = text.split('\n')[0]!.slice(0, 80);
        out.push({
          type: 'activity',
          activity: { id: `${id}-thinking-${++this.thoughts}`, kind: 'reasoning', status: 'completed', title, text },
        });
      } else out.push(this.other(`assistant:${str(b.type) ?? 'unknown'}`, undefined));
    }
    return out;
  }

  private onUser(event: Json): StreamEvent[] {
    const content = obj(event.message)?.content;
    const out: StreamEvent[] = [];
    for (const block of Array.isArray(content) ? content : []) {
      const b = obj(block);
      if (b?.type !== 'tool_result') continue;
      const activity = this.activities.onToolResult(b, event.tool_use_result, event.tool_result_meta);
      if (activity) out.push({ type: 'activity', activity });
    }
    return out;
  }

  /**
   * The result of a turn the caller interrupted: Claude Code ends it with an error result
   * (`error_during_execution`), or none when it never started; the answer is the text so far.
   */
  finishInterrupted(exit: LineProcessExit, conversation?: string, keepSession = true): ChatResult {
    try {
      return this.finish(exit);
    } catch {
      const sessionId = keepSession ? (str(this.result?.session_id) ?? this.sessionId ?? conversation) : undefined;
      return {
        message: { role: 'assistant', content: this.text.all },
        usage: this.result ? integerUsage(this.result.usage) : {},
        ...(this.model ? { model: this.model } : {}),
        metadata: { finishReason: 'interrupted', ...(sessionId ? { nativeSessionId: sessionId } : {}) },
      };
    }
  }

  /** The final result, or the typed error the turn ended with. */
  finish(exit: LineProcessExit): ChatResult {
    const r = this.result;
    if (!r)
      throw classifyFailure(
        claudeFailure(
          this.failure.error ? { ...this.failure, rateLimit: this.failure.rateLimit ?? this.rateLimit } : undefined,
          exit,
          this.jsonLines === 0 && this.otherLines > 0,
        ),
        CLAUDE_FAILURES,
      );
    const structured = this.options.structured;
    // Claude Code's own schema retries ran out: the last attempt goes to core's check (and its one repair turn).
    const retriesSpent = structured && r.subtype === 'error_max_structured_output_retries';
    if (r.is_error === true && !retriesSpent) {
      throw classifyFailure(
        claudeFailure(
          {
            error: this.failure.error,
            status: num(r.api_error_status) ?? this.failure.status,
            apiError: str(r.api_error) ?? this.failure.apiError,
            message: str(r.result) ?? (Array.isArray(r.errors) ? str(r.errors[0]) : undefined) ?? this.failure.message,
            rateLimit: this.failure.rateLimit ?? this.rateLimit,
            terminalReason: str(r.terminal_reason),
          },
          exit,
        ),
        CLAUDE_FAILURES,
      );
    }
    const answer =
      structured && (r.structured_output !== undefined || retriesSpent)
        ? structuredText(r.structured_output ?? this.structuredInput, structured.wrapped)
        : undefined;
    const content = answer ?? str(r.result) ?? this.text.all;
    const modelUsage = obj(r.modelUsage);
    const model = this.model ?? (modelUsage ? Object.keys(modelUsage)[0] : undefined);
    const metadata: Record<string, unknown> = {};
    const put = (key: string, value: unknown) => {
      if (value !== undefined && value !== null) metadata[key] = value;
    };
    put('nativeSessionId', str(r.session_id) ?? this.sessionId);
    // total_cost_usd is the session's running total (restored on resume); the turn's own cost is since the last result.
    put('totalCostUsd', turnCost(obj(r.model_usage_since_last_result)) ?? num(r.total_cost_usd));
    put('sessionCostUsd', num(r.total_cost_usd));
    put('durationMs', num(r.duration_ms));
    put('durationApiMs', num(r.duration_api_ms));
    put('numTurns', num(r.num_turns));
    put('stopReason', str(r.stop_reason));
    put('terminalReason', str(r.terminal_reason));
    if (Array.isArray(r.permission_denials) && r.permission_denials.length > 0) put('permissionDenials', r.permission_denials.length);
    if (retriesSpent) put('structuredOutputError', Array.isArray(r.errors) ? str(r.errors[0])?.slice(0, 300) : undefined);
    return {
      message: { role: 'assistant', content },
      usage: integerUsage(r.usage),
      ...(model ? { model } : {}),
      metadata,
    };
  }
}

function turnCost(usage: Json | undefined): number | undefined {
  if (!usage) return undefined;
  const costs = Object.values(usage).map((u) => num(obj(u)?.costUSD));
  if (costs.length === 0 || costs.some((c) => c === undefined)) return undefined;
  return costs.reduce<number>((a, c) => a + c!, 0);
}

function textOf(message: Json | undefined): string | undefined {
  if (!message || !Array.isArray(message.content)) return undefined;
  const parts = message.content.map((b) => str(obj(b)?.text) ?? '').filter(Boolean);
  return parts.length ? parts.join('') : undefined;
}
