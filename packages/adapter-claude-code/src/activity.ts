import { ACTIVITY_TAIL_CHARS } from '@toolbridge/adapter-kit';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Activity } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** Claude Code's plan tools: TodoWrite (older models, or with env switches) and the Task* family. */
const PLAN_TOOLS = new Set(['TodoWrite', 'TaskCreate', 'TaskUpdate', 'TaskList', 'TaskGet']);
/** The tool `--json-schema` adds: its input is the answer, not a step. */
export const STRUCTURED_TOOL = 'StructuredOutput';

const firstLine = (s: string, max = 120) => {
  const line = s.split('\n').find((l) => l.trim()) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A tool result's text (a string, or text blocks). */
export function resultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.map((c) => str(obj(c)?.text) ?? '').filter(Boolean);
  return parts.length ? parts.join('\n') : undefined;
}

/**
 * Claude Code's tool calls as Toolbridge activities: Bash → `command` (exit code, output tail),
 * Write/Edit/MultiEdit/NotebookEdit → `file_change`, WebSearch → `web_search`, TodoWrite and the
 * Task* tools → one `plan`, anything else (Read, Grep, WebFetch, MCP tools `mcp__server__tool`,
 * sub-agents) → `tool_call`. A step keeps its tool_use id from start to end.
 */
export class ActivityTracker {
  private readonly steps = new Map<string, Activity>();
  private readonly planInputs = new Map<string, { name: string; input: Json }>();
  private readonly denials = new Map<string, string>();
  private readonly tasks = new Map<string, { text: string; done: boolean }>();
  private planStarted = false;
  /** The turn's working directory (from `system:init`), to tell a new file from an existing one. */
  cwd?: string;

  /** A `tool_use` block: the step it starts, if it shows now (plan tools show at their result; StructuredOutput never). */
  onToolUse(b: Json): Activity | undefined {
    const id = str(b.id) ?? `tool-${this.steps.size + this.planInputs.size}`;
    const name = str(b.name) ?? 'tool';
    const input = obj(b.input) ?? {};
    if (name === STRUCTURED_TOOL) return undefined;
    if (PLAN_TOOLS.has(name)) {
      this.planInputs.set(id, { name, input });
      return undefined;
    }
    const activity = startOf(id, name, input, this.cwd);
    this.steps.set(id, activity);
    return activity;
  }

  /** A `system:permission_denied` line: the reason the step's result will fail with. */
  onDenied(toolUseId: string, message: string): void {
    this.denials.set(toolUseId, message);
  }

  /** A `tool_result` block, with its line's `tool_use_result` (Claude Code's structured account of the call). */
  onToolResult(b: Json, toolUseResult: unknown, meta: unknown): Activity | undefined {
    const id = str(b.tool_use_id) ?? '';
    const failed = b.is_error === true;
    const text = (resultText(b.content) ?? '').replace(/<\/?tool_use_error>/g, '');
    const plan = this.planInputs.get(id);
    if (plan) {
      this.planInputs.delete(id);
      if (failed) return { id, kind: 'tool_call', status: 'failed', title: `${plan.name} (failed: ${firstLine(text)})`, name: plan.name };
      return this.planUpdate(plan.name, plan.input, obj(toolUseResult));
    }
    const started = this.steps.get(id);
    if (!started) return undefined;
    this.steps.delete(id);
    const denied = this.denials.get(id) ?? (isRejected(meta) ? text : undefined);
    const reason = failed ? ` (${denied !== undefined ? 'denied' : 'failed'}: ${firstLine(denied ?? text)})` : '';
    const status = failed ? 'failed' : 'completed';
    const r = obj(toolUseResult);
    switch (started.kind) {
      case 'command': {
        const exit = /^Exit code (\d+)/.exec(text);
        const exitCode = exit ? Number(exit[1]) : !failed && r && r.interrupted !== true && !r.backgroundTaskId ? 0 : undefined;
        const output =
          r && !failed ? [str(r.stdout), str(r.stderr)].filter(Boolean).join('\n') : exit ? text.slice(exit[0].length).trim() : text;
        return {
          ...started,
          status,
          title: `${started.title}${r?.backgroundTaskId ? ' (in background)' : ''}${reason}`,
          ...(exitCode !== undefined ? { exitCode } : {}),
          ...(output ? { outputTail: tail(output, ACTIVITY_TAIL_CHARS) } : {}),
        };
      }
      case 'file_change': {
        const kind: 'add' | 'update' | undefined = r?.type === 'create' ? 'add' : r?.type === 'update' ? 'update' : undefined;
        const changes = kind ? started.changes.map((c) => ({ ...c, kind })) : started.changes;
        return { ...started, status, title: `${started.title}${reason}`, changes };
      }
      case 'tool_call':
        return { ...started, status, title: `${started.title}${reason}`, ...(text ? { output: tail(text, ACTIVITY_TAIL_CHARS) } : {}) };
      default:
        return { ...started, status, title: `${started.title}${reason}` };
    }
  }

  private planUpdate(name: string, input: Json, r: Json | undefined): Activity | undefined {
    if (name === 'TodoWrite') {
      const todos = Array.isArray(r?.newTodos) ? r.newTodos : Array.isArray(input.todos) ? input.todos : [];
      this.tasks.clear();
      todos.forEach((t, i) => this.tasks.set(String(i), { text: str(obj(t)?.content) ?? '', done: obj(t)?.status === 'completed' }));
    } else if (name === 'TaskCreate') {
      const task = obj(r?.task);
      const taskId = str(task?.id) ?? String(this.tasks.size + 1);
      this.tasks.set(taskId, { text: str(task?.subject) ?? str(input.subject) ?? `Task #${taskId}`, done: false });
    } else if (name === 'TaskUpdate') {
      const taskId = str(input.taskId) ?? '';
      const task = this.tasks.get(taskId) ?? { text: `Task #${taskId}`, done: false };
      if (input.status === 'deleted') this.tasks.delete(taskId);
      else this.tasks.set(taskId, { text: str(input.subject) ?? task.text, done: input.status ? input.status === 'completed' : task.done });
    } else if (name === 'TaskList' && Array.isArray(r?.tasks)) {
      this.tasks.clear();
      for (const t of r.tasks)
        this.tasks.set(str(obj(t)?.id) ?? '', { text: str(obj(t)?.subject) ?? '', done: obj(t)?.status === 'completed' });
    } else return undefined;
    const items = [...this.tasks.values()];
    const status = items.length > 0 && items.every((i) => i.done) ? 'completed' : this.planStarted ? 'updated' : 'started';
    this.planStarted = true;
    return { id: 'plan', kind: 'plan', status, title: `Plan (${items.filter((i) => i.done).length}/${items.length} done)`, items };
  }
}

function isRejected(meta: unknown): boolean {
  return Array.isArray(meta) && meta.some((m) => obj(obj(m)?.permission_decision)?.decision === 'reject' || obj(m)?.non_execution_kind);
}

function startOf(id: string, name: string, input: Json, cwd: string | undefined): Activity {
  if (name === 'Bash') {
    const command = str(input.command) ?? '';
    return { id, kind: 'command', status: 'started', title: firstLine(str(input.description) ?? command), command };
  }
  if (FILE_TOOLS.has(name)) {
    const file = str(input.file_path) ?? str(input.notebook_path) ?? '';
    const exists = file && cwd ? existsSync(path.resolve(cwd, file)) : true;
    const kind = name === 'Write' && !exists ? 'add' : 'update';
    return { id, kind: 'file_change', status: 'started', title: `${name} ${path.basename(file)}`, changes: [{ path: file, kind }] };
  }
  if (name === 'WebSearch') {
    const query = str(input.query) ?? '';
    return { id, kind: 'web_search', status: 'started', title: `Search: ${firstLine(query)}`, query };
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  const summary = Object.keys(input).length > 0 ? tail(JSON.stringify(input), ACTIVITY_TAIL_CHARS) : undefined;
  return {
    id,
    kind: 'tool_call',
    status: 'started',
    title: mcp ? `${mcp[1]}: ${mcp[2]}` : name,
    name: mcp ? mcp[2]! : name,
    ...(mcp ? { server: mcp[1]! } : {}),
    ...(summary ? { input: summary } : {}),
  };
}
