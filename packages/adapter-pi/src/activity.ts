import { ACTIVITY_TAIL_CHARS } from '@toolbridge/adapter-kit';
import { type Activity, type ActivityStatus } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { FILE_TOOLS } from './extension.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const STATUS: Record<string, ActivityStatus> = {
  tool_execution_start: 'started',
  tool_execution_update: 'updated',
  tool_execution_end: 'completed',
};

/** The text of a tool result (`{content:[{type:"text",text}]}`). */
function resultText(result: unknown): string {
  const content = rec(result).content;
  if (!Array.isArray(content)) return '';
  return content.map((c) => str(rec(c).text) ?? '').join('');
}

/**
 * One `tool_execution_start|update|end` event (`{toolCallId, toolName, args, partialResult|result,
 * isError}`) as an activity: `bash` a command, `write`/`edit` a file change, anything else a tool
 * call. Updates of one call share the call's id; a blocked call (the permission extension) ends
 * `failed` with the reason as its output.
 */
export function toolActivity(event: Rec): Activity {
  const tool = str(event.toolName) ?? 'tool';
  const id = str(event.toolCallId) ?? `${tool}-call`;
  const args = rec(event.args);
  let status = STATUS[str(event.type) ?? ''] ?? 'updated';
  if (event.type === 'tool_execution_end' && event.isError === true) status = 'failed';
  const output = resultText(event.result ?? event.partialResult);
  if (tool === 'bash') {
    const command = str(args.command) ?? '';
    return {
      id,
      kind: 'command',
      status,
      title: command.split('\n')[0]!.slice(0, 120) || 'bash',
      command,
      ...(output ? { outputTail: tail(output, ACTIVITY_TAIL_CHARS) } : {}),
    };
  }
  const field = FILE_TOOLS[tool];
  if (field && str(args[field])) {
    const file = str(args[field])!;
    return {
      id,
      kind: 'file_change',
      status,
      title: `${tool} ${file}`,
      changes: [{ path: file, kind: tool === 'write' ? 'add' : 'update' }],
    };
  }
  return {
    id,
    kind: 'tool_call',
    status,
    title: tool,
    name: tool,
    input: tail(JSON.stringify(args), ACTIVITY_TAIL_CHARS),
    ...(output ? { output: tail(output, ACTIVITY_TAIL_CHARS) } : {}),
  };
}
