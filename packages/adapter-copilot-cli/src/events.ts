import { finishedStep, JsonEventParser, otherActivity, startedStep, type JsonEvent } from '@toolbridge/adapter-kit';
import { type Activity, type StreamEvent } from '@toolbridge/core';

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

/** Text parts of one answer are separate paragraphs (e.g. before and after a tool call). */
const PART_SEPARATOR = '\n\n';

/** Bookkeeping events that say nothing a caller needs (turn and model-call boundaries, loaded skills, the echoed prompt). */
const QUIET = new Set([
  'session.skills_loaded',
  'session.mcp_servers_loaded',
  'session.mcp_server_status_changed',
  'session.tools_updated',
  'session.background_tasks_changed',
  'session.mode_notice_delivered',
  'session.usage_checkpoint',
  'user.message',
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.message_start',
  'assistant.reasoning_delta',
  'assistant.tool_call_delta',
  'assistant.idle',
  'model.call_start',
  'model.call_finished',
  'model.call_final_result',
  'tool.execution_partial_result',
  'tool.shell_output',
]);

/** A `tool.execution_start` as the activity it starts. */
export function toolActivity(data: Json): Activity {
  const id = str(data.toolCallId) ?? 'copilot-tool';
  const name = str(data.toolName) ?? 'tool';
  const args = obj(data.arguments) ?? {};
  if (name === 'bash') return startedStep.command(id, str(args.command) ?? '');
  if (name === 'create' || name === 'edit')
    return startedStep.fileChange(id, name, str(args.path) ?? '', name === 'create' ? 'add' : 'update');
  return startedStep.toolCall(id, name, args, str(data.mcpServerName));
}

/** A step's activity updated by its `tool.execution_complete`: the command's exit code, the files edited. */
export function finishedActivity(started: Activity, data: Json): Activity {
  const status = data.success === true ? ('completed' as const) : ('failed' as const);
  const done = finishedStep(started, status, str(obj(data.result)?.content) || str(obj(data.error)?.message));
  if (done.kind === 'command') {
    const exitCode = int(obj(data.shellExecution)?.exitCode);
    return exitCode !== undefined ? { ...done, exitCode } : done;
  }
  if (done.kind === 'file_change') {
    const edits = Array.isArray(data.fileEdits) ? data.fileEdits.map(obj) : [];
    const changes = edits.flatMap((e) => {
      const path = str(e?.path);
      const kind = e?.kind === 'create' ? ('add' as const) : e?.kind === 'delete' ? ('delete' as const) : ('update' as const);
      return path ? [{ path, kind }] : [];
    });
    return changes.length ? { ...done, changes } : done;
  }
  return done;
}

/** Copilot's `session.error`: the run failed. */
export interface SessionError {
  errorType?: string;
  message: string;
  statusCode?: number;
  errorCode?: string;
}

/** A failed model call (`model.call_failure`), before Copilot decides whether to retry it. */
export interface CallFailure {
  statusCode?: number;
  failureKind?: string;
  errorMessage: string;
}

/**
 * Folds `copilot --output-format json` lines into stream events as they arrive: message deltas
 * as text (a new paragraph for each new message), tool executions as activities, reasoning and
 * notices as activities, and the end state (`result`, `session.error`) for the caller to judge.
 */
export class CopilotEventParser extends JsonEventParser {
  sessionId?: string;
  exitCode?: number;
  /** `result.usage`: premium requests, durations, code changes. */
  runUsage?: Json;
  model?: string;
  text = '';
  error?: SessionError;
  lastCallFailure?: CallFailure;
  /** Copilot announced a retry (`assistant.turn_retry`) of `lastCallFailure`. */
  retrying = false;
  aborted = false;
  warnings: string[] = [];
  private readonly steps = new Map<string, Activity>();
  /** Message ids whose text was already passed on (as deltas or whole). */
  private readonly spoken = new Set<string>();
  private currentMessage?: string;
  private notices = 0;

  pushEvent(e: JsonEvent): StreamEvent[] {
    const data = obj(e.data) ?? {};
    switch (e.type) {
      case 'assistant.message_delta':
        return this.textDelta(str(data.messageId), str(data.deltaContent) ?? '');
      case 'assistant.message': {
        this.model = str(data.model) ?? this.model;
        const id = str(data.messageId);
        // Without streaming (a provider that does not stream) the whole message comes only here.
        return id && this.spoken.has(id) ? [] : this.textDelta(id, str(data.content) ?? '');
      }
      case 'assistant.reasoning': {
        const text = str(data.content) ?? '';
        if (!text) return [];
        const id = str(data.reasoningId) ?? `copilot-reasoning-${++this.notices}`;
        return [
          { type: 'activity', activity: { id, kind: 'reasoning', status: 'completed', title: text.split('\n')[0]!.slice(0, 80), text } },
        ];
      }
      case 'tool.execution_start': {
        const activity = toolActivity(data);
        this.steps.set(activity.id, activity);
        return [{ type: 'activity', activity }];
      }
      case 'tool.execution_complete': {
        const id = str(data.toolCallId) ?? '';
        const started = this.steps.get(id) ?? toolActivity({ toolCallId: id || `copilot-tool-${++this.notices}` });
        return [{ type: 'activity', activity: finishedActivity(started, data) }];
      }
      case 'model.call_failure':
        this.lastCallFailure = {
          ...(int(data.statusCode) !== undefined ? { statusCode: int(data.statusCode) } : {}),
          ...(str(data.failureKind) ? { failureKind: str(data.failureKind) } : {}),
          errorMessage: str(data.errorMessage) ?? '',
        };
        return [];
      case 'assistant.turn_retry':
        this.retrying = true;
        return [this.other('retry', str(data.reason))];
      case 'session.error':
        this.error = {
          message: str(data.message) ?? '',
          ...(str(data.errorType) ? { errorType: str(data.errorType) } : {}),
          ...(int(data.statusCode) !== undefined ? { statusCode: int(data.statusCode) } : {}),
          ...(str(data.errorCode) ? { errorCode: str(data.errorCode) } : {}),
        };
        return [];
      case 'session.warning': {
        const message = str(data.message) ?? '';
        this.warnings.push(message);
        return [this.other('warning', message)];
      }
      case 'session.info':
        // A created file is already the tool step's own file change.
        if (data.infoType === 'file_created') return [];
        return [this.other(`info.${str(data.infoType) ?? 'other'}`, str(data.message))];
      case 'result':
        this.sessionId = str(e.sessionId);
        this.exitCode = int(e.exitCode);
        this.runUsage = obj(e.usage);
        return [];
      default:
        if (e.type === 'assistant.idle' && data.aborted === true) this.aborted = true;
        if (QUIET.has(e.type)) return [];
        // Event types of newer versions.
        return [this.other(e.type, str(data.message))];
    }
  }

  private textDelta(messageId: string | undefined, chunk: string): StreamEvent[] {
    if (!chunk) return [];
    let text = chunk;
    if (messageId && messageId !== this.currentMessage) {
      if (this.text.length > 0) text = PART_SEPARATOR + chunk;
      this.currentMessage = messageId;
    }
    if (messageId) this.spoken.add(messageId);
    this.text += text;
    return [{ type: 'delta', text }];
  }

  private other(rawType: string, detail: string | undefined): StreamEvent {
    return { type: 'activity', activity: otherActivity(`copilot-notice-${++this.notices}`, rawType, detail) };
  }
}
