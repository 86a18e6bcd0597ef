import type { Notification } from './warm-process.js';

type Json = Record<string, unknown>;
/** An event in `codex exec --json`'s shape, which `CodexEventParser` reads. */
export type ExecEvent = Json & { type: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const STATUS: Record<string, string> = { inProgress: 'in_progress', completed: 'completed', failed: 'failed', declined: 'declined' };
const USAGE_KEYS: Record<string, string> = {
  inputTokens: 'input_tokens',
  cachedInputTokens: 'cached_input_tokens',
  cacheWriteInputTokens: 'cache_write_input_tokens',
  outputTokens: 'output_tokens',
  reasoningOutputTokens: 'reasoning_output_tokens',
};

/** An app-server item in exec's item shape; undefined for items that are no step (the user's own message). */
export function execItem(item: Json, event: 'started' | 'completed'): Json | undefined {
  const id = item.id;
  const status = STATUS[str(item.status) ?? ''] ?? item.status;
  switch (item.type) {
    case 'userMessage':
      return undefined;
    case 'agentMessage':
      return event === 'completed' ? { id, type: 'agent_message', text: item.text } : undefined;
    case 'reasoning': {
      // exec reports reasoning once, complete, with its summary.
      if (event !== 'completed') return undefined;
      const parts = Array.isArray(item.summary) && item.summary.length ? item.summary : Array.isArray(item.content) ? item.content : [];
      return { id, type: 'reasoning', text: parts.join('\n') };
    }
    case 'commandExecution':
      return {
        id,
        type: 'command_execution',
        command: item.command,
        aggregated_output: item.aggregatedOutput ?? '',
        exit_code: item.exitCode ?? null,
        status,
      };
    case 'fileChange': {
      const changes = (Array.isArray(item.changes) ? item.changes : []).map((c: Json) => ({
        path: c?.path,
        kind: (c?.kind as Json | undefined)?.type ?? c?.kind,
      }));
      return { id, type: 'file_change', changes, status };
    }
    case 'mcpToolCall':
      return {
        id,
        type: 'mcp_tool_call',
        server: item.server,
        tool: item.tool,
        arguments: item.arguments,
        result: item.result,
        error: item.error,
        status,
      };
    case 'webSearch':
      return { id, type: 'web_search', query: item.query };
    default:
      // Types this version does not map (plan-mode items, compaction, image views, newer ones) stay visible as themselves.
      return { ...item, type: str(item.type) ?? 'unknown' };
  }
}

/**
 * Turns one turn's app-server notifications into `codex exec --json` events, so one parser
 * (activity, the held answer, failures) serves both transports. Usage is summed over the turn's
 * model requests (`tokenUsage.last`); the thread's `total` runs on from earlier turns.
 */
export class AppServerTurn {
  private readonly usage: Record<string, number> = {};
  private plan?: { id: string; items: unknown[] };
  private warnings = 0;
  /** Items started and not completed, by id (commands still running when a turn is interrupted). */
  readonly running = new Map<string, string>();
  /** Every item id seen (to tell which calls of the turn's log produced no item). */
  readonly seen = new Set<string>();
  /** The turn's end: its status and error message. */
  end?: { status: string; error?: string };
  /** The agent message being written (its deltas), for an interrupted turn's text so far. */
  partialText = '';
  /** This turn's id, once `turn/start` has answered (a resumed or forked thread reports its earlier usage too). */
  turnId?: string;

  push(n: Notification): ExecEvent[] {
    const p = n.params;
    switch (n.method) {
      case 'item/started':
      case 'item/completed': {
        const item = (p.item ?? {}) as Json;
        const event = n.method === 'item/started' ? 'started' : 'completed';
        if (typeof item.id === 'string') {
          this.seen.add(item.id);
          if (item.type === 'agentMessage' && event === 'started') this.partialText = '';
          if (item.type === 'commandExecution' && event === 'started') this.running.set(item.id, str(item.command) ?? '');
          if (event === 'completed') this.running.delete(item.id);
        }
        const mapped = execItem(item, event);
        return mapped ? [{ type: `item.${event}`, item: mapped }] : [];
      }
      case 'item/agentMessage/delta':
        this.partialText += str(p.delta) ?? '';
        return [];
      case 'turn/plan/updated': {
        const items = (Array.isArray(p.plan) ? p.plan : []).map((s: Json) => ({
          text: str(s?.step) ?? '',
          completed: s?.status === 'completed',
        }));
        const first = this.plan === undefined;
        // One step for the turn's plan: app-server sends updates, not an item.
        this.plan = { id: this.plan?.id ?? `plan-${str(p.turnId) ?? 'turn'}`, items };
        return [{ type: first ? 'item.started' : 'item.updated', item: { id: this.plan.id, type: 'todo_list', items } }];
      }
      case 'thread/tokenUsage/updated': {
        if (this.turnId !== undefined && p.turnId !== this.turnId) return [];
        const last = ((p.tokenUsage as Json | undefined)?.last ?? {}) as Json;
        for (const [k, name] of Object.entries(USAGE_KEYS))
          if (typeof last[k] === 'number') this.usage[name] = (this.usage[name] ?? 0) + (last[k] as number);
        return [];
      }
      case 'warning':
        // exec shows the same notices ("Model metadata for … not found") as error items.
        return [{ type: 'item.completed', item: { id: `warning-${++this.warnings}`, type: 'error', message: p.message } }];
      case 'error': {
        const error = (p.error ?? {}) as Json;
        return [{ type: 'error', message: str(error.message) ?? 'error' }];
      }
      case 'turn/completed': {
        const turn = (p.turn ?? {}) as Json;
        const status = str(turn.status) ?? 'completed';
        const error = str((turn.error as Json | null)?.message);
        this.end = { status, ...(error ? { error } : {}) };
        if (status === 'completed') {
          // exec completes a plan at the turn's end; so does this.
          const plan = this.plan ? [{ type: 'item.completed', item: { id: this.plan.id, type: 'todo_list', items: this.plan.items } }] : [];
          return [...plan, { type: 'turn.completed', usage: { ...this.usage } }];
        }
        if (status === 'failed') return [{ type: 'turn.failed', error: { message: error ?? 'turn failed' } }];
        return [];
      }
      default:
        return [];
    }
  }
}
