import type { Activity } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';

type FileChangeKind = Extract<Activity, { kind: 'file_change' }>['changes'][number]['kind'];

/** How much of a tool's input and output an activity carries (the end of it). */
export const ACTIVITY_TAIL_CHARS = 2000;

/**
 * A step a tool reported that has no kind of its own (a notice, a retry, an event type of a newer
 * version), as a completed `other` activity: titled by the first line of its detail, else its type.
 */
export function otherActivity(id: string, rawType: string, detail?: string): Activity {
  return {
    id,
    kind: 'other',
    status: 'completed',
    title: detail?.split('\n')[0]!.slice(0, 80) || rawType,
    rawType,
    ...(detail ? { detail } : {}),
  };
}

/**
 * The start of a tool step, as the kind each tool's own step names map to (the names and their
 * argument keys are the tool's: its `events.ts` reads them and calls these).
 */
export const startedStep = {
  /** A shell command, titled by itself. */
  command: (id: string, command: string): Activity => ({ id, status: 'started', kind: 'command', title: command, command }),
  /** One file written, titled by the tool's name and the path. */
  fileChange: (id: string, tool: string, path: string, kind: FileChangeKind): Activity => ({
    id,
    status: 'started',
    kind: 'file_change',
    title: `${tool} ${path}`,
    changes: [{ path, kind }],
  }),
  /** Any other tool: its arguments as JSON (the end of them); `server` names an MCP tool's server. */
  toolCall(id: string, name: string, args: Record<string, unknown>, server?: string): Activity {
    const input = Object.keys(args).length > 0 ? tail(JSON.stringify(args), ACTIVITY_TAIL_CHARS) : undefined;
    return {
      id,
      status: 'started',
      kind: 'tool_call',
      title: server ? `${server}.${name}` : name,
      name,
      ...(server ? { server } : {}),
      ...(input ? { input } : {}),
    };
  },
};

/** A started step, ended: its status, and its output (the end of it) on a command or a tool call. */
export function finishedStep(started: Activity, status: 'completed' | 'failed', output?: string): Activity {
  const text = output ? tail(output, ACTIVITY_TAIL_CHARS) : undefined;
  if (started.kind === 'command') return { ...started, status, ...(text ? { outputTail: text } : {}) };
  if (started.kind === 'tool_call') return { ...started, status, ...(text ? { output: text } : {}) };
  return { ...started, status };
}
