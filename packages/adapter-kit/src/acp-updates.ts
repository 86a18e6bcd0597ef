import type { PlanEntry, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { Activity, ActivityStatus, ApprovalRequest } from '@toolbridge/core';
import { ACTIVITY_TAIL_CHARS } from './activity.js';

type Json = Record<string, unknown>;

/** What is known of one ACP tool call: its first announcement merged with every update since. */
export type AcpToolCall = ToolCallUpdate;

const FILE_KINDS: ReadonlySet<ToolKind> = new Set(['edit', 'delete', 'move']);

const STATUS: Record<ToolCallStatus, ActivityStatus> = {
  pending: 'started',
  in_progress: 'updated',
  completed: 'completed',
  failed: 'failed',
};

const textOf = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** A value as one line of JSON (tool inputs and outputs), cut to a size an activity should carry. */
function brief(v: unknown, max = ACTIVITY_TAIL_CHARS): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** The command of an `execute` call: `rawInput.command` as the agents here send it, else its title. */
function commandOf(call: AcpToolCall): string {
  const input = (call.rawInput ?? {}) as Json;
  return textOf(input.command) ?? (Array.isArray(input.commands) ? input.commands.join(' && ') : undefined) ?? call.title ?? '';
}

/** Paths a file call touches: its locations, its diffs, else `rawInput` paths. */
function pathsOf(call: AcpToolCall): string[] {
  const paths = new Set<string>();
  for (const l of (call.locations ?? []) as ToolCallLocation[]) paths.add(l.path);
  for (const c of (call.content ?? []) as ToolCallContent[]) if (c.type === 'diff') paths.add(c.path);
  const input = (call.rawInput ?? {}) as Json;
  for (const key of ['file_path', 'path', 'filePath']) if (paths.size === 0 && textOf(input[key])) paths.add(input[key] as string);
  return [...paths];
}

function changeKind(call: AcpToolCall, path: string): 'add' | 'update' | 'delete' {
  if (call.kind === 'delete') return 'delete';
  const diff = ((call.content ?? []) as ToolCallContent[]).find((c) => c.type === 'diff' && c.path === path);
  return diff && diff.type === 'diff' && (diff.oldText === null || diff.oldText === undefined) ? 'add' : 'update';
}

/** Text a finished call produced (its content blocks, else `rawOutput`), for `output`/`outputTail`. */
function outputOf(call: AcpToolCall): string | undefined {
  const texts = ((call.content ?? []) as ToolCallContent[]).flatMap((c) =>
    c.type === 'content' && c.content.type === 'text' ? [c.content.text] : [],
  );
  return brief(texts.length ? texts.join('\n') : call.rawOutput);
}

/** An ACP tool call as a Toolbridge activity: `execute` → command, `edit`/`delete`/`move` → file_change, the rest → tool_call. */
export function activityOfToolCall(call: AcpToolCall): Activity {
  const base = { id: call.toolCallId, status: STATUS[call.status ?? 'pending'], title: call.title ?? call.kind ?? 'tool call' };
  if (call.kind === 'execute') {
    const output = outputOf(call);
    return { ...base, kind: 'command', command: commandOf(call), ...(output ? { outputTail: output.slice(-ACTIVITY_TAIL_CHARS) } : {}) };
  }
  if (call.kind && FILE_KINDS.has(call.kind) && pathsOf(call).length > 0) {
    return { ...base, kind: 'file_change', changes: pathsOf(call).map((path) => ({ path, kind: changeKind(call, path) })) };
  }
  const input = brief(call.rawInput);
  const output = call.status === 'completed' || call.status === 'failed' ? outputOf(call) : undefined;
  return {
    ...base,
    kind: 'tool_call',
    name: call.name ?? call.kind ?? call.title ?? 'tool',
    ...(input ? { input } : {}),
    ...(output ? { output } : {}),
  };
}

/** An ACP plan as a plan activity (one per session turn: each update replaces the whole plan). */
export function activityOfPlan(id: string, entries: readonly PlanEntry[]): Activity {
  const done = entries.length > 0 && entries.every((e) => e.status === 'completed');
  return {
    id,
    kind: 'plan',
    status: done ? 'completed' : 'updated',
    title: 'Plan',
    items: entries.map((e) => ({ text: e.content, done: e.status === 'completed' })),
  };
}

/** What a permission request asks, as the one ApprovalRequest every adapter's tool turns into. */
export function approvalOfToolCall(call: AcpToolCall, cwd: string): ApprovalRequest {
  const title = call.title ?? call.kind ?? 'tool call';
  if (call.kind === 'execute') return { kind: 'command', title, command: commandOf(call), cwd };
  if (call.kind && FILE_KINDS.has(call.kind)) {
    return { kind: 'file_change', title, changes: pathsOf(call).map((path) => ({ path, kind: changeKind(call, path) })) };
  }
  const input = call.rawInput;
  return {
    kind: 'tool_call',
    title,
    tool: call.name ?? call.kind ?? title,
    ...(input && typeof input === 'object' ? { input: input as Json } : {}),
  };
}

/** Merge an update into what is known of a call (fields it sets replace the old ones). */
export function mergeToolCall(known: AcpToolCall | undefined, update: AcpToolCall): AcpToolCall {
  const out: AcpToolCall = { ...(known ?? {}), toolCallId: update.toolCallId };
  for (const [k, v] of Object.entries(update)) if (v !== undefined && v !== null && k !== 'sessionUpdate') (out as Json)[k] = v;
  return out;
}
