import { ACTIVITY_TAIL_CHARS, integerUsage, JsonEventParser, type JsonEvent } from '@toolbridge/adapter-kit';
import { type Activity, type ActivityStatus, type StreamEvent, type Usage } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';

type Item = Record<string, unknown> & { id?: unknown; type?: unknown };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

function statusOf(item: Item, event: 'started' | 'updated' | 'completed'): ActivityStatus {
  if (item.status === 'failed' || item.status === 'declined') return 'failed';
  if (event === 'completed' && item.type === 'command_execution' && int(item.exit_code) !== undefined && item.exit_code !== 0)
    return 'failed';
  return event;
}

/** A Codex item (`command_execution`, `file_change`, ...) as a normalised activity. */
export function activityOf(item: Item, event: 'started' | 'updated' | 'completed'): Activity {
  const type = str(item.type) ?? 'unknown';
  const id = str(item.id) ?? `codex-${type}`;
  const status = statusOf(item, event);
  switch (type) {
    case 'command_execution': {
      const command = str(item.command) ?? '';
      const output = str(item.aggregated_output);
      const exitCode = int(item.exit_code);
      return {
        id,
        kind: 'command',
        status,
        title: command,
        command,
        ...(exitCode !== undefined ? { exitCode } : {}),
        ...(output ? { outputTail: tail(output, ACTIVITY_TAIL_CHARS) } : {}),
      };
    }
    case 'file_change': {
      const changes = (Array.isArray(item.changes) ? item.changes : []).map((c: { path?: unknown; kind?: unknown }) => ({
        path: str(c?.path) ?? '',
        kind: (c?.kind === 'add' || c?.kind === 'delete' ? c.kind : 'update') as 'add' | 'update' | 'delete',
      }));
      const title = changes.length === 1 ? `${changes[0]!.kind} ${changes[0]!.path}` : `${changes.length} file changes`;
      return { id, kind: 'file_change', status, title, changes };
    }
    case 'mcp_tool_call': {
      const name = str(item.tool) ?? 'tool';
      const server = str(item.server);
      const input = item.arguments === undefined ? undefined : tail(JSON.stringify(item.arguments), ACTIVITY_TAIL_CHARS);
      const result = item.result ?? item.error;
      return {
        id,
        kind: 'tool_call',
        status,
        title: server ? `${server}.${name}` : name,
        name,
        ...(server ? { server } : {}),
        ...(input ? { input } : {}),
        ...(result !== undefined && result !== null
          ? { output: tail(typeof result === 'string' ? result : JSON.stringify(result), ACTIVITY_TAIL_CHARS) }
          : {}),
      };
    }
    case 'web_search': {
      const query = str(item.query) ?? '';
      return { id, kind: 'web_search', status, title: `Search: ${query}`, query };
    }
    case 'reasoning': {
      const text = str(item.text) ?? '';
      return { id, kind: 'reasoning', status, title: text.split('\n')[0]!.replace(/\*\*/g, '').slice(0, 80) || 'Reasoning', text };
    }
    case 'todo_list': {
      const items = (Array.isArray(item.items) ? item.items : []).map((t: { text?: unknown; completed?: unknown }) => ({
        text: str(t?.text) ?? '',
        done: t?.completed === true,
      }));
      return { id, kind: 'plan', status, title: `Plan (${items.filter((i) => i.done).length}/${items.length} done)`, items };
    }
    default: {
      // Non-fatal notices ("Model metadata ... not found"), the agent talking while it works, and types of newer versions.
      const detail = str(item.message) ?? str(item.text);
      return {
        id,
        kind: 'other',
        status,
        title: detail?.split('\n')[0]!.slice(0, 80) ?? type,
        rawType: type,
        ...(detail ? { detail } : {}),
      };
    }
  }
}

/**
 * Folds `codex exec --json` events into stream events as they arrive.
 *
 * The answer is the last `agent_message`; earlier ones are the agent talking while it works. An
 * agent message is therefore held until the next item or the end of the turn shows whether it was
 * the last: then it becomes either an activity or the answer's delta. Deltas thus add up to
 * exactly the final answer.
 */
export class CodexEventParser extends JsonEventParser {
  threadId?: string;
  usage: Usage = {};
  turnCompleted = false;
  /** The `turn.failed` (or fatal `error`) message, once seen. */
  failure?: string;
  /** The last `error` event that was not a reconnect notice. */
  lastError?: string;
  warnings: string[] = [];
  answer?: string;
  /** Commands started and not (yet) completed, by item id: a blocked one never completes. */
  readonly openCommands = new Map<string, string>();
  private readonly started = new Set<string>();
  private held?: { id?: string; text: string };
  private notices = 0;

  /** One event already parsed (the warm transport's notifications, translated to exec's shape). */
  pushEvent(event: JsonEvent): StreamEvent[] {
    const out: StreamEvent[] = [];
    switch (event.type) {
      case 'thread.started':
        this.threadId = str(event.thread_id);
        break;
      case 'turn.started':
        break;
      case 'item.started':
      case 'item.updated':
      case 'item.completed': {
        const item = event.item as Item | undefined;
        if (!item || typeof item !== 'object') break;
        const status = event.type.slice('item.'.length) as 'started' | 'updated' | 'completed';
        if (item.type === 'agent_message') {
          // Only a completed message is the agent's text; started/updated are partial.
          if (status !== 'completed') break;
          this.release(out);
          this.held = { id: str(item.id), text: str(item.text) ?? '' };
          break;
        }
        // Only a new step shows the held message was not the last: Codex completes a plan (todo_list) it
        // started earlier only at the end of the turn, after the answer.
        const id = str(item.id);
        if (status === 'started' || id === undefined || !this.started.has(id)) this.release(out);
        if (id !== undefined && status === 'started') this.started.add(id);
        if (id !== undefined && item.type === 'command_execution') {
          if (status === 'completed') this.openCommands.delete(id);
          else this.openCommands.set(id, str(item.command) ?? '');
        }
        if (item.type === 'error' && typeof item.message === 'string') this.warnings.push(item.message);
        out.push({ type: 'activity', activity: activityOf(item, status) });
        break;
      }
      case 'turn.completed':
        this.turnCompleted = true;
        this.usage = { ...this.usage, ...integerUsage(event.usage) };
        this.settle(out);
        break;
      case 'turn.failed': {
        const err = event.error as { message?: unknown } | undefined;
        this.failure = str(err?.message) ?? this.lastError ?? 'turn failed';
        break;
      }
      case 'error': {
        const message = str(event.message) ?? '';
        // Codex retries on its own and says so with error events; those are not the end.
        const rawType = /^Reconnecting\b/i.test(message) ? 'reconnecting' : 'error';
        if (rawType === 'error') this.lastError = message;
        out.push({
          type: 'activity',
          activity: {
            id: `codex-notice-${++this.notices}`,
            kind: 'other',
            status: 'completed',
            title: message.slice(0, 80),
            rawType,
            detail: message,
          },
        });
        break;
      }
      default:
        out.push({
          type: 'activity',
          activity: { id: `codex-event-${++this.notices}`, kind: 'other', status: 'completed', title: event.type, rawType: event.type },
        });
        break;
    }
    return out;
  }

  /** The held message was not the last one: it is the agent talking while it works. */
  private release(out: StreamEvent[]): void {
    if (!this.held) return;
    const { id, text } = this.held;
    this.held = undefined;
    out.push({ type: 'activity', activity: activityOf({ id, type: 'agent_message', text }, 'completed') });
  }

  /** The turn is over: the held message is the answer. */
  settle(out: StreamEvent[]): void {
    if (!this.held) return;
    this.answer = this.held.text;
    this.held = undefined;
    if (this.answer) out.push({ type: 'delta', text: this.answer });
  }
}
