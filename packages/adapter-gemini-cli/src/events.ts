import { finishedStep, integerUsage, JsonEventParser, otherActivity, startedStep, type JsonEvent } from '@toolbridge/adapter-kit';
import { type Activity, type StreamEvent, type Usage } from '@toolbridge/core';

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** Text parts of one answer are separate paragraphs (e.g. before and after a tool call). */
const PART_SEPARATOR = '\n\n';

/** The `tool_use` event of a step, as the activity it starts. */
export function toolActivity(toolId: string, toolName: string, parameters: Json): Activity {
  switch (toolName) {
    case 'run_shell_command':
      return startedStep.command(toolId, str(parameters.command) ?? '');
    case 'write_file':
    case 'replace':
      // Gemini does not say whether write_file created the file or replaced it.
      return startedStep.fileChange(toolId, toolName, str(parameters.file_path) ?? '', 'update');
    case 'google_web_search': {
      const query = str(parameters.query) ?? '';
      return { id: toolId, status: 'started', kind: 'web_search', title: `Search: ${query}`, query };
    }
    case 'write_todos': {
      const todos = Array.isArray(parameters.todos) ? parameters.todos : [];
      const items = todos.map((t) => ({ text: str(obj(t)?.description) ?? '', done: obj(t)?.status === 'completed' }));
      return {
        id: toolId,
        status: 'started',
        kind: 'plan',
        title: `Plan (${items.filter((i) => i.done).length}/${items.length} done)`,
        items,
      };
    }
    default:
      return startedStep.toolCall(toolId, toolName, parameters);
  }
}

/** A step's activity updated by its `tool_result`. */
export function finishedActivity(started: Activity, result: Json): Activity {
  const status = result.status !== 'success' ? ('failed' as const) : ('completed' as const);
  return finishedStep(started, status, str(result.output) || str(obj(result.error)?.message));
}

/** What a `result` event said. */
export interface GeminiResult {
  status: string;
  error?: { type?: string; message: string };
  usage: Usage;
  /** The models that answered (Gemini keys stats by the response's model version). */
  models: string[];
  toolCalls?: number;
}

/** `result.stats` as integer usage in Toolbridge's names (`input_tokens` includes the cached ones). */
export function usageOf(stats: Json | undefined): Usage {
  const u = integerUsage(stats ?? {});
  const out: Usage = {};
  if (u.input_tokens !== undefined) out.input_tokens = u.input_tokens;
  if (u.cached !== undefined) out.cached_input_tokens = u.cached;
  if (u.output_tokens !== undefined) out.output_tokens = u.output_tokens;
  if (u.total_tokens !== undefined) out.total_tokens = u.total_tokens;
  return out;
}

/**
 * Folds `gemini -o stream-json` lines into stream events as they arrive: assistant text as
 * deltas (a new paragraph after each tool step), tool steps as activities, notices as `other`
 * activities, and the final `result` kept for the caller to judge.
 */
export class GeminiEventParser extends JsonEventParser {
  sessionId?: string;
  /** The model the run started with (`auto` when Gemini routes). */
  model?: string;
  text = '';
  result?: GeminiResult;
  warnings: string[] = [];
  private readonly steps = new Map<string, Activity>();
  private breakBeforeText = false;
  private notices = 0;

  pushEvent(e: JsonEvent): StreamEvent[] {
    switch (e.type) {
      case 'init':
        this.sessionId = str(e.session_id);
        this.model = str(e.model);
        return [];
      case 'message':
        return e.role === 'assistant' ? this.textDelta(str(e.content) ?? '') : [];
      case 'tool_use': {
        const id = str(e.tool_id) ?? `gemini-tool-${++this.notices}`;
        const activity = toolActivity(id, str(e.tool_name) ?? 'tool', obj(e.parameters) ?? {});
        this.steps.set(id, activity);
        this.breakBeforeText = this.text.length > 0;
        return [{ type: 'activity', activity }];
      }
      case 'tool_result': {
        const id = str(e.tool_id) ?? '';
        const started = this.steps.get(id) ?? toolActivity(id || `gemini-tool-${++this.notices}`, 'tool', {});
        return [{ type: 'activity', activity: finishedActivity(started, e) }];
      }
      case 'error': {
        // Non-fatal notices (loop detected, turn limit, empty stream); the result decides the outcome.
        const message = str(e.message) ?? '';
        this.warnings.push(message);
        const rawType = str(e.severity) === 'warning' ? 'warning' : 'error';
        return [this.other(rawType, message)];
      }
      case 'result': {
        const error = obj(e.error);
        const stats = obj(e.stats);
        this.result = {
          status: str(e.status) ?? 'unknown',
          ...(error ? { error: { type: str(error.type), message: str(error.message) ?? '' } } : {}),
          usage: usageOf(stats),
          models: Object.keys(obj(stats?.models) ?? {}),
          ...(typeof stats?.tool_calls === 'number' ? { toolCalls: stats.tool_calls } : {}),
        };
        return [];
      }
      default:
        // Event types of newer versions.
        return [this.other(e.type, str(e.message))];
    }
  }

  private textDelta(chunk: string): StreamEvent[] {
    if (!chunk) return [];
    const text = this.breakBeforeText ? PART_SEPARATOR + chunk : chunk;
    this.breakBeforeText = false;
    this.text += text;
    return [{ type: 'delta', text }];
  }

  private other(rawType: string, detail: string | undefined): StreamEvent {
    return { type: 'activity', activity: otherActivity(`gemini-notice-${++this.notices}`, rawType, detail) };
  }
}
