import { ACTIVITY_TAIL_CHARS, otherActivity } from '@toolbridge/adapter-kit';
import { type Activity } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The tool `--json-schema` adds: its input is the answer, not a step. */
export const STRUCTURED_TOOL = 'structured_output';
const FILE_TOOLS: Readonly<Record<string, 'add' | 'update'>> = { write_file: 'add', edit: 'update', notebook_edit: 'update' };

const firstLine = (s: string, max = 120) => {
  const line = s.split('\n').find((l) => l.trim()) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A tool result's text (a string, or text blocks). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c) => str(obj(c)?.text) ?? '').join('\n');
}

/**
 * Qwen Code's tool calls (0.24.4 names) as Toolbridge activities: run_shell_command → `command`,
 * write_file/edit/notebook_edit → `file_change`, web_search → `web_search`, todo_write → `plan`,
 * anything else (read_file, glob, grep_search, web_fetch, MCP tools, sub-agents) → `tool_call`. A
 * step keeps its tool_use id from start to end.
 */
export class ActivityTracker {
  private readonly steps = new Map<string, Activity>();

  /** A `tool_use` block of an assistant message: the step it starts (never the structured answer). */
  onToolUse(b: Json): Activity | undefined {
    const name = str(b.name) ?? 'tool';
    if (name === STRUCTURED_TOOL) return undefined;
    const id = str(b.id) ?? `tool-${this.steps.size}`;
    const input = obj(b.input) ?? {};
    const activity = startOf(id, name, input);
    this.steps.set(id, activity);
    return activity;
  }

  /** A `tool_result` block of a user message: the step it ends. */
  onToolResult(b: Json): Activity | undefined {
    const id = str(b.tool_use_id) ?? '';
    const started = this.steps.get(id);
    if (!started) return undefined;
    this.steps.delete(id);
    const text = resultText(b.content);
    const failed = b.is_error === true;
    const status = failed ? 'failed' : 'completed';
    const title = failed ? `${started.title} (failed: ${firstLine(text)})` : started.title;
    if (started.kind === 'command') {
      const exit = /Exit Code: (-?\d+)/.exec(text)?.[1];
      return { ...started, status, title, outputTail: tail(text, ACTIVITY_TAIL_CHARS), ...(exit ? { exitCode: Number(exit) } : {}) };
    }
    if (started.kind === 'tool_call') return { ...started, status, title, output: tail(text, ACTIVITY_TAIL_CHARS) };
    return { ...started, status, title };
  }

  /** Steps that never got a result (the turn ended first): failed. */
  unfinished(): Activity[] {
    const out = [...this.steps.values()].map((a) => ({ ...a, status: 'failed' as const }));
    this.steps.clear();
    return out;
  }
}

function startOf(id: string, name: string, input: Json): Activity {
  const base = { id, status: 'started' as const };
  if (name === 'run_shell_command') {
    const command = str(input.command) ?? '';
    return { ...base, kind: 'command', title: firstLine(command) || name, command };
  }
  const change = FILE_TOOLS[name];
  const file = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
  if (change && file) return { ...base, kind: 'file_change', title: `${name} ${file}`, changes: [{ path: file, kind: change }] };
  if (name === 'web_search') {
    const query = str(input.query) ?? '';
    return { ...base, kind: 'web_search', title: query || name, query };
  }
  if (name === 'todo_write' && Array.isArray(input.todos)) {
    const items = input.todos.map((t) => ({ text: str(obj(t)?.content) ?? '', done: obj(t)?.status === 'completed' }));
    return { ...base, kind: 'plan', title: 'plan', items };
  }
  const shown = JSON.stringify(input);
  return { ...base, kind: 'tool_call', title: name, name, ...(shown !== '{}' ? { input: shown.slice(0, ACTIVITY_TAIL_CHARS) } : {}) };
}

/** A line type this parser does not know, as an `other` step. */
export const unknownStep = (id: string, rawType: string, detail?: string): Activity => otherActivity(id, rawType, detail);
