import { ACTIVITY_TAIL_CHARS } from '@toolbridge/adapter-kit';
import { type Activity, type ActivityStatus } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';

/**
 * OpenCode's message parts as normalised activity, for both transports: `opencode run --format
 * json` prints a tool part once, when it has `completed` or `error`ed (and reasoning only with
 * `--thinking`); `opencode serve`'s `/event` stream sends every state (`pending` → `running` →
 * `completed`/`error`). Shapes measured with 1.18.33 (research/opencode FACTS §1.4, §1.5, §3).
 */

type Rec = Record<string, unknown>;

/** OpenCode's tool states as activity statuses. */
const TOOL_STATUS: Record<string, ActivityStatus> = { pending: 'started', running: 'updated', completed: 'completed', error: 'failed' };

/** Tools that change files; `patch` lists its files in its own text. */
const FILE_TOOLS = new Set(['write', 'edit', 'multiedit', 'patch', 'apply_patch']);
const PLAN_TOOLS = new Set(['todowrite', 'todoread']);
const SEARCH_TOOLS = new Set(['websearch', 'codesearch']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const short = (s: string): string => tail(s, ACTIVITY_TAIL_CHARS);
const firstLine = (s: string): string => s.split('\n')[0]!.slice(0, 120);

/** Whether a part's state is final (OpenCode sends no more updates for it). */
export function isFinal(status: ActivityStatus): boolean {
  return status === 'completed' || status === 'failed';
}

/** The id of a part's step: the model's call id for tools (stable across updates), else the part id. */
export function partId(part: Rec): string | undefined {
  return str(part.callID) ?? str(part.id);
}

/**
 * One OpenCode part (`{type:"tool"|"reasoning"|..., ...}`) as an activity; `undefined` for the
 * parts that are not steps (text, step-start/step-finish, the user's own parts). Any part type
 * this does not know becomes `other` with the raw type, never an error.
 */
export function partActivity(part: Rec): Activity | undefined {
  const type = str(part.type) ?? 'unknown';
  switch (type) {
    case 'tool':
      return toolActivity(part);
    case 'reasoning': {
      const text = str(part.text) ?? '';
      const status: ActivityStatus = rec(part.time).end !== undefined ? 'completed' : text ? 'updated' : 'started';
      return {
        id: partId(part) ?? 'reasoning',
        kind: 'reasoning',
        status,
        title: firstLine(text) || 'Reasoning',
        text,
      };
    }
    case 'text':
    case 'step-start':
    case 'step-finish':
    case 'file':
    case 'agent':
      return undefined;
    default:
      return { id: partId(part) ?? type, kind: 'other', status: 'completed', title: type, rawType: type };
  }
}

/** A `{type:"tool", tool, callID, state}` part as an activity of the kind its tool is. */
export function toolActivity(part: Rec): Activity {
  const tool = str(part.tool) ?? 'tool';
  const state = rec(part.state);
  const input = rec(state.input);
  const metadata = rec(state.metadata);
  const id = partId(part) ?? `${tool}-call`;
  let status = TOOL_STATUS[str(state.status) ?? ''] ?? 'updated';
  const output = str(state.output) ?? str(metadata.output);
  const error = str(state.error);
  if (tool === 'bash') {
    const command = str(input.command) ?? '';
    const exit = metadata.exit;
    const exitCode = typeof exit === 'number' && Number.isInteger(exit) ? exit : undefined;
    // OpenCode reports a command that exited non-zero as `completed`; the step did fail.
    if (status === 'completed' && exitCode !== undefined && exitCode !== 0) status = 'failed';
    const shown = output ?? error;
    return {
      id,
      kind: 'command',
      status,
      title: command || str(state.title) || 'bash',
      command,
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(shown ? { outputTail: short(shown) } : {}),
    };
  }
  if (FILE_TOOLS.has(tool)) {
    const changes = fileChanges(tool, input, metadata);
    const what = changes.length === 1 ? `${changes[0]!.kind} ${changes[0]!.path}` : `${tool}: ${changes.length} files`;
    return { id, kind: 'file_change', status, title: error ? `${what} (${firstLine(error)})` : what, changes };
  }
  if (PLAN_TOOLS.has(tool)) {
    const todos = Array.isArray(input.todos) ? input.todos : Array.isArray(metadata.todos) ? metadata.todos : [];
    const items = todos.map((t) => ({ text: str(rec(t).content) ?? '', done: rec(t).status === 'completed' }));
    return { id, kind: 'plan', status, title: str(state.title) ?? 'Plan', items };
  }
  if (SEARCH_TOOLS.has(tool) || tool === 'webfetch') {
    const query = (tool === 'webfetch' ? str(input.url) : str(input.query)) ?? '';
    return { id, kind: 'web_search', status, title: tool === 'webfetch' ? `Fetch ${query}` : `Search ${query}`, query };
  }
  // The model called a tool it does not have (e.g. `write` under read-only): OpenCode answers
  // with its `invalid` tool, which "completes"; the step the model wanted did not happen.
  const refused = tool === 'invalid';
  const name = refused ? (str(input.tool) ?? 'invalid') : tool;
  const detail = output ?? error;
  return {
    id,
    kind: 'tool_call',
    status: refused ? 'failed' : status,
    title: refused ? `${name} refused: ${firstLine(str(input.error) ?? detail ?? 'tool not available')}` : toolTitle(tool, state),
    name,
    ...(Object.keys(input).length ? { input: short(JSON.stringify(input)) } : {}),
    ...(detail ? { output: short(detail) } : {}),
  };
}

function toolTitle(tool: string, state: Rec): string {
  const title = str(state.title);
  return title ? `${tool}: ${title}` : tool;
}

type Change = { path: string; kind: 'add' | 'update' | 'delete' };

/** The files a write/edit/patch step touches, with what happens to each. */
export function fileChanges(tool: string, input: Rec, metadata: Rec): Change[] {
  if (tool === 'patch' || tool === 'apply_patch') {
    const text = str(input.patchText) ?? str(input.patch) ?? '';
    const out: Change[] = [];
    for (const m of text.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) {
      out.push({ path: m[2]!.trim(), kind: m[1] === 'Add' ? 'add' : m[1] === 'Delete' ? 'delete' : 'update' });
    }
    return out;
  }
  const path = str(input.filePath) ?? str(metadata.filepath) ?? '';
  // `write` says in its metadata whether the file was there before; before it ran, a write is an add.
  const kind = tool === 'write' ? (metadata.exists === true ? 'update' : 'add') : 'update';
  return path ? [{ path, kind }] : [];
}

/**
 * Activity of one turn, in order: a step seen for the first time in a final state (how `opencode
 * run` prints every tool) is announced as `started` first, so each step goes started → completed
 * or failed on both transports. Updates after a final state are dropped.
 */
export class ActivityTracker {
  private readonly last = new Map<string, ActivityStatus>();

  accept(part: Rec): Activity[] {
    const activity = partActivity(part);
    if (!activity) return [];
    const before = this.last.get(activity.id);
    if (before && isFinal(before)) return [];
    this.last.set(activity.id, activity.status);
    if (before === undefined && isFinal(activity.status) && activity.kind !== 'reasoning' && activity.kind !== 'other') {
      return [{ ...activity, status: 'started' } as Activity, activity];
    }
    return [activity];
  }
}
