import path from 'node:path';
import { ACTIVITY_TAIL_CHARS, integerUsage, parseJsonLine } from '@toolbridge/adapter-kit';
import { type Activity, type Usage } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { newestSessionFiles, tailLines } from './session-files.js';

/**
 * Codex's session log of a thread ("rollout", `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread
 * id>.jsonl`): what neither `codex exec --json` nor the app-server's notifications tell.
 */

/** How much of a rollout's end is read: the last turn, with its tool outputs (Codex caps each at a few kB). */
const TAIL_BYTES = 4 * 1024 * 1024;

/** The rollout file of a thread, newest first; thread ids are unique, so the first match is the file. */
export async function findRollout(codexHome: string, threadId: string, signal?: AbortSignal): Promise<string | undefined> {
  const suffix = `-${threadId}.jsonl`;
  for await (const file of newestSessionFiles(path.join(codexHome, 'sessions'), signal)) if (file.endsWith(suffix)) return file;
  return undefined;
}

type Entry = { type?: unknown; payload?: Record<string, unknown> };
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

async function entries(file: string): Promise<Entry[]> {
  const lines = await tailLines(file, TAIL_BYTES).catch(() => [] as string[]);
  return lines.map((l) => parseJsonLine(l) as Entry | undefined).filter((e): e is Entry => e !== undefined);
}

/** The thread's running token total (`token_count.info.total_token_usage`), as the last answer left it. */
export async function threadTotal(file: string): Promise<Usage | undefined> {
  const all = await entries(file);
  for (let i = all.length - 1; i >= 0; i--) {
    const p = all[i]!.payload;
    if (all[i]!.type === 'event_msg' && p?.type === 'token_count') {
      const total = (p.info as { total_token_usage?: unknown } | null)?.total_token_usage;
      if (total) return integerUsage(total);
    }
  }
  return undefined;
}

/** Usage of one turn from the thread's totals after and before it (`exec` reports the thread's running total). */
export function turnUsage(after: Usage, before: Usage | undefined): Usage {
  if (!before) return after;
  const out: Usage = {};
  for (const [k, v] of Object.entries(after)) out[k] = Math.max(0, v - (before[k] ?? 0));
  return out;
}

/** The model's tool call with this id (`function_call`, `local_shell_call`, …) as the thread's log holds it, if it does yet. */
export async function findCall(file: string, callId: string): Promise<Record<string, unknown> | undefined> {
  const all = await entries(file);
  for (let i = all.length - 1; i >= 0; i--) {
    const p = all[i]!.payload;
    if (all[i]!.type === 'response_item' && p?.call_id === callId && /call$/.test(str(p.type) ?? '')) return p;
  }
  return undefined;
}

/** What the last turn of a rollout shows: the model it ran with, and tool calls that left no item. */
export interface LastTurn {
  model?: string;
  /** Commands and patches Codex refused or its sandbox blocked: they produce no item, only a tool output. */
  blocked: Activity[];
}

const COMMAND_TOOLS = new Set(['exec_command', 'shell', 'shell_command', 'local_shell', 'container.exec']);
const PATCH_TOOLS = new Set(['apply_patch']);

function argsOf(payload: Record<string, unknown>): Record<string, unknown> {
  const raw = payload.arguments;
  if (typeof raw !== 'string') return typeof raw === 'object' && raw ? (raw as Record<string, unknown>) : {};
  return (parseJsonLine(raw) as Record<string, unknown> | undefined) ?? {};
}

function outputText(payload: Record<string, unknown>): string {
  const o = payload.output;
  if (typeof o === 'string') return o;
  const content = (o as { content?: unknown } | undefined)?.content;
  return typeof content === 'string' ? content : JSON.stringify(o ?? '');
}

function blockedActivity(call: Record<string, unknown>, output: string): Activity | undefined {
  const id = str(call.call_id)!;
  const name = str(call.name) ?? '';
  if (COMMAND_TOOLS.has(name)) {
    const args = argsOf(call);
    const command = str(args.cmd) ?? (Array.isArray(args.command) ? args.command.join(' ') : (str(args.command) ?? name));
    // `apply_patch <<'EOF' … EOF` in a shell command is intercepted by Codex and applied as a patch:
    // refused, it leaves only the output "patch rejected: …" (no exit code), so it is a failed file change.
    const patch = PATCH_IN_COMMAND.exec(command)?.[0];
    if (patch) return patchFailure(id, patch, output);
    // Unified exec's output: "Chunk ID… Process exited with code N … Output:\n<text>".
    const exit = /Process exited with code (-?\d+)/.exec(output);
    // Only a command that ended with a failure was blocked; one still running in the background has no item yet either.
    if (!exit || exit[1] === '0') return undefined;
    const text = /\nOutput:\n([\s\S]*)$/.exec(output)?.[1] ?? output;
    return {
      id,
      kind: 'command',
      status: 'failed',
      title: command,
      command,
      exitCode: Number(exit[1]),
      ...(text ? { outputTail: tail(text, ACTIVITY_TAIL_CHARS) } : {}),
    };
  }
  if (PATCH_TOOLS.has(name)) return patchFailure(id, str(call.input) ?? str(argsOf(call).input) ?? '', output);
  return undefined;
}

/** A patch in a shell command (`apply_patch <<'EOF'`, or Codex's `applypatch`). */
const PATCH_IN_COMMAND = /\*\*\* Begin Patch[\s\S]*?\*\*\* End Patch/;

/** A patch that left no item: a failed file change, unless its output says it was applied. */
function patchFailure(id: string, patch: string, output: string): Activity | undefined {
  if (/^(Exit code: 0|Success)/m.test(output) || /Process exited with code 0\b/.test(output)) return undefined;
  const kinds = { Add: 'add', Update: 'update', Delete: 'delete' } as const;
  const changes = [...patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)].map((m) => ({
    path: m[2]!.trim(),
    kind: kinds[m[1] as keyof typeof kinds],
  }));
  const what = changes.length === 1 ? `${changes[0]!.kind} ${changes[0]!.path}` : `${changes.length} file changes`;
  return { id, kind: 'file_change', status: 'failed', title: `${what}: ${output.split('\n')[0]!.slice(0, 160)}`, changes };
}

/**
 * Read the last turn (from its `task_started`). A command Codex's sandbox blocked, or that printed a
 * denial text and failed, and a patch it rejected produce no item at all, in `exec` and app-server
 * alike; the rollout still holds the call and the output the model got. Every command or patch call
 * without a completed item (`item_completed` with the call's id) is reported as a failed step.
 */
export async function readLastTurn(file: string): Promise<LastTurn> {
  const all = await entries(file);
  let start = -1;
  for (let i = all.length - 1; i >= 0 && start < 0; i--) if (all[i]!.payload?.type === 'task_started') start = i;
  if (start < 0) return { blocked: [] };
  let model: string | undefined;
  const calls = new Map<string, Record<string, unknown>>();
  const outputs = new Map<string, string>();
  const ran = new Set<string>();
  for (const { type, payload: p } of all.slice(start)) {
    if (!p) continue;
    if (type === 'turn_context') model = str(p.model) ?? model;
    else if (type === 'response_item' && typeof p.call_id === 'string') {
      if (p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') calls.set(p.call_id, p);
      else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') outputs.set(p.call_id, outputText(p));
    } else if (type === 'event_msg') {
      const item = p.item as { id?: unknown } | undefined;
      if (p.type === 'item_completed' && typeof item?.id === 'string') ran.add(item.id);
      else if (typeof p.call_id === 'string' && /_end$/.test(str(p.type) ?? '')) ran.add(p.call_id);
    }
  }
  const blocked: Activity[] = [];
  for (const [id, call] of calls) {
    const output = outputs.get(id);
    if (ran.has(id) || output === undefined) continue;
    const activity = blockedActivity(call, output);
    if (activity) blocked.push(activity);
  }
  return { ...(model ? { model } : {}), blocked };
}
