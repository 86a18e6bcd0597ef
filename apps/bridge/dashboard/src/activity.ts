/** An agent's steps as the playground shows them: one row per step id, updated in place (pure; no DOM). */

import type { Activity } from '@toolbridge/core/wire';

const KIND_LABELS: Record<string, string> = {
  command: 'Command',
  file_change: 'Files changed',
  tool_call: 'Tool call',
  web_search: 'Web search',
  reasoning: 'Reasoning',
  plan: 'Plan',
  other: 'Other step',
};

const STATUS_LABELS: Record<string, string> = {
  started: 'running',
  updated: 'running',
  completed: 'done',
  failed: 'failed',
};

/** Long texts (a reasoning summary, a tool's output) are cut here: the timeline is an overview, not a log. */
const MAX_TEXT = 4000;

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

/**
 * The steps of one chat in the order they started. An update (same `id`) replaces the step's
 * fields where it sends them, so a `completed` event without the command still shows it.
 */
export class ActivityTimeline {
  private readonly steps = new Map<string, Activity>();

  apply(activity: Activity): void {
    const before = this.steps.get(activity.id);
    this.steps.set(activity.id, before ? { ...before, ...activity } : activity);
  }

  /** A non-streamed answer's `activities` (their final states). */
  applyAll(activities: readonly Activity[] | undefined): void {
    for (const a of activities ?? []) this.apply(a);
  }

  get size(): number {
    return this.steps.size;
  }

  get items(): Activity[] {
    return [...this.steps.values()];
  }
}

export interface ActivityView {
  id: string;
  kind: string;
  kindLabel: string;
  status: string;
  statusLabel: string;
  title: string;
  /** Short label/value facts: exit code, MCP server, search query. */
  facts: Array<[string, string]>;
  /** Monospace blocks: the command, its output tail, a tool's input and output. */
  blocks: Array<{ label: string; text: string }>;
  changes: Array<{ path: string; kind: string }>;
  plan: Array<{ text: string; done: boolean }>;
  /** Prose: reasoning, or what an unknown step said. */
  text?: string;
}

/** What one step's row shows. */
export function activityView(a: Activity): ActivityView {
  const facts: Array<[string, string]> = [];
  const blocks: Array<{ label: string; text: string }> = [];
  let text: string | undefined;
  switch (a.kind) {
    case 'command':
      // The title often is the command itself; then it is not repeated.
      if (a.command && a.command !== a.title) blocks.push({ label: 'Command', text: cut(a.command) });
      if (typeof a.exitCode === 'number') facts.push(['Exit code', String(a.exitCode)]);
      if (a.outputTail) blocks.push({ label: 'Output (last lines)', text: cut(a.outputTail) });
      break;
    case 'tool_call':
      if (a.name) facts.push(['Tool', a.server ? `${a.server} / ${a.name}` : a.name]);
      if (a.input) blocks.push({ label: 'Input', text: cut(a.input) });
      if (a.output) blocks.push({ label: 'Output', text: cut(a.output) });
      break;
    case 'web_search':
      if (a.query) facts.push(['Query', a.query]);
      break;
    case 'reasoning':
      text = a.text ? cut(a.text) : undefined;
      break;
    case 'other':
      if (a.rawType) facts.push(['Type', a.rawType]);
      text = a.detail ? cut(a.detail) : undefined;
      break;
  }
  return {
    id: a.id,
    kind: a.kind,
    kindLabel: KIND_LABELS[a.kind] ?? a.kind,
    status: a.status,
    statusLabel: STATUS_LABELS[a.status] ?? a.status,
    title: a.title,
    facts,
    blocks,
    changes: a.kind === 'file_change' && Array.isArray(a.changes) ? a.changes : [],
    plan: a.kind === 'plan' && Array.isArray(a.items) ? a.items : [],
    ...(text ? { text } : {}),
  };
}

/** "3 steps, 1 failed" for the timeline's heading. */
export function timelineSummary(items: readonly Activity[]): string {
  const failed = items.filter((a) => a.status === 'failed').length;
  const running = items.filter((a) => a.status === 'started' || a.status === 'updated').length;
  const parts = [`${items.length} ${items.length === 1 ? 'step' : 'steps'}`];
  if (running) parts.push(`${running} running`);
  if (failed) parts.push(`${failed} failed`);
  return parts.join(', ');
}
