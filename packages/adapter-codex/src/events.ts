import { integerUsage, parseJsonLine, tail, type ProgressItem, type StreamEvent, type Usage } from '@toolbridge/core';

type Item = Record<string, unknown> & { id?: unknown; type?: unknown };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A non-text item (reasoning, a command, a file edit, ...) as a typed progress item. */
export function progressOf(item: Item, status: string): ProgressItem {
  const type = str(item.type) ?? 'unknown';
  const id = str(item.id);
  const base = { ...(id ? { id } : {}), status };
  const data: Record<string, unknown> = { ...item };
  delete data.id;
  delete data.type;
  if (typeof data.aggregated_output === 'string') data.aggregated_output = tail(data.aggregated_output, 4000);
  let text: string | undefined;
  switch (type) {
    case 'reasoning':
      text = str(item.text);
      break;
    case 'command_execution':
      text = str(item.command);
      break;
    case 'file_change':
      text = Array.isArray(item.changes)
        ? item.changes.map((c: { kind?: unknown; path?: unknown }) => `${str(c?.kind) ?? 'update'} ${str(c?.path) ?? ''}`.trim()).join('\n')
        : undefined;
      break;
    case 'mcp_tool_call':
      text = [str(item.server), str(item.tool)].filter(Boolean).join('.') || undefined;
      break;
    case 'web_search':
      text = str(item.query);
      break;
    case 'todo_list':
      text = Array.isArray(item.items)
        ? item.items.map((t: { text?: unknown; completed?: unknown }) => `[${t?.completed ? 'x' : ' '}] ${str(t?.text) ?? ''}`).join('\n')
        : undefined;
      break;
    case 'error':
      // Non-fatal notices ("Model metadata ... not found", transport fallbacks).
      return { kind: 'warning', ...base, ...(str(item.message) ? { text: str(item.message) } : {}) };
    default:
      text = str(item.text) ?? str(item.message);
  }
  return { kind: type, ...base, ...(text !== undefined ? { text } : {}), ...(Object.keys(data).length ? { data } : {}) };
}

/**
 * Folds `codex exec --json` events into stream events as they arrive.
 *
 * The answer is the last `agent_message`; earlier ones are the agent talking
 * while it works. An agent message is therefore held until the next item or
 * the end of the turn shows whether it was the last: then it becomes either
 * progress (`agent_message`) or the answer's delta. Deltas thus add up to
 * exactly the final answer.
 */
export class CodexEventParser {
  threadId?: string;
  usage: Usage = {};
  turnCompleted = false;
  /** The `turn.failed` (or fatal `error`) message, once seen. */
  failure?: string;
  /** The last `error` event that was not a reconnect notice. */
  lastError?: string;
  warnings: string[] = [];
  nonJsonLines = 0;
  answer?: string;
  private held?: { id?: string; text: string };

  push(line: string): StreamEvent[] {
    if (!line.trim()) return [];
    const event = parseJsonLine(line);
    if (!event || typeof event.type !== 'string') {
      this.nonJsonLines++;
      return [];
    }
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
        const status = event.type.slice('item.'.length);
        if (item.type === 'agent_message') {
          // Only a completed message is the agent's text; started/updated are partial.
          if (status !== 'completed') break;
          this.release(out);
          this.held = { id: str(item.id), text: str(item.text) ?? '' };
          break;
        }
        this.release(out);
        if (item.type === 'error' && typeof item.message === 'string') this.warnings.push(item.message);
        out.push({ type: 'progress', item: progressOf(item, status) });
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
        if (/^Reconnecting\b/i.test(message)) {
          out.push({ type: 'progress', item: { kind: 'reconnecting', text: message } });
        } else {
          this.lastError = message;
          out.push({ type: 'progress', item: { kind: 'error', text: message } });
        }
        break;
      }
      default:
        break;
    }
    return out;
  }

  /** The held message was not the last one: it is progress. */
  private release(out: StreamEvent[]): void {
    if (!this.held) return;
    const { id, text } = this.held;
    this.held = undefined;
    out.push({ type: 'progress', item: { kind: 'agent_message', ...(id ? { id } : {}), status: 'completed', text } });
  }

  /** The turn is over: the held message is the answer. */
  settle(out: StreamEvent[]): void {
    if (!this.held) return;
    this.answer = this.held.text;
    this.held = undefined;
    if (this.answer) out.push({ type: 'delta', text: this.answer });
  }
}
