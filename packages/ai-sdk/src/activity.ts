import type { JSONObject, LanguageModelV4ToolCall, LanguageModelV4ToolResult } from '@ai-sdk/provider';
import type { Activity } from 'toolbridge';

/**
 * An agent's steps (commands, file changes, tool uses, searches, plans) as the AI SDK's
 * provider-executed, dynamic tool calls and results: `streamText` UIs show them as tool parts, and
 * the AI SDK never tries to run them itself. Reasoning is not a tool; it becomes reasoning parts.
 */

type StepActivity = Exclude<Activity, { kind: 'reasoning' }>;

/** The name the step is shown under: the agent's own tool name for tool uses, else its kind. */
export function toolNameOf(a: StepActivity): string {
  switch (a.kind) {
    case 'tool_call':
      return a.server ? `${a.server}.${a.name}` : a.name;
    case 'other':
      return a.rawType;
    default:
      return a.kind;
  }
}

function inputOf(a: StepActivity): JSONObject {
  switch (a.kind) {
    case 'command':
      return { command: a.command };
    case 'file_change':
      return { changes: a.changes };
    case 'tool_call':
      return a.input === undefined ? {} : parsedObject(a.input);
    case 'web_search':
      return { query: a.query };
    case 'plan':
      return { items: a.items };
    case 'other':
      return a.detail === undefined ? {} : { detail: a.detail };
  }
}

/** Tools report their input as JSON text, possibly cut short; an object when it parses, else the text. */
function parsedObject(text: string): JSONObject {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JSONObject;
  } catch {
    // not (complete) JSON: keep the text
  }
  return { input: text };
}

function resultOf(a: StepActivity): JSONObject {
  const base: JSONObject = { status: a.status, title: a.title };
  switch (a.kind) {
    case 'command':
      return { ...base, ...(a.exitCode !== undefined ? { exitCode: a.exitCode } : {}), ...(a.outputTail ? { output: a.outputTail } : {}) };
    case 'file_change':
      return { ...base, changes: a.changes };
    case 'tool_call':
      return { ...base, ...(a.output !== undefined ? { output: a.output } : {}) };
    case 'plan':
      return { ...base, items: a.items };
    case 'other':
      return { ...base, ...(a.detail !== undefined ? { detail: a.detail } : {}) };
    case 'web_search':
      return base;
  }
}

const meta = (a: StepActivity) => ({ toolbridge: { kind: a.kind, title: a.title } });

export function toolCallOf(a: StepActivity, toolCallId: string): LanguageModelV4ToolCall {
  return {
    type: 'tool-call',
    toolCallId,
    toolName: toolNameOf(a),
    input: JSON.stringify(inputOf(a)),
    providerExecuted: true,
    dynamic: true,
    providerMetadata: meta(a),
  };
}

/**
 * The step's result. A step the agent never finished (the turn ended, or the attempt failed)
 * still gets one, so every call has its result: `failed` is an error result.
 */
export function toolResultOf(a: StepActivity, toolCallId: string, override?: JSONObject): LanguageModelV4ToolResult {
  const result = { ...resultOf(a), ...override };
  return {
    type: 'tool-result',
    toolCallId,
    toolName: toolNameOf(a),
    result,
    ...(result.status === 'failed' ? { isError: true } : {}),
    dynamic: true,
    providerMetadata: meta(a),
  };
}

export function isStep(a: Activity): a is StepActivity {
  return a.kind !== 'reasoning';
}

export const isFinished = (a: Activity) => a.status === 'completed' || a.status === 'failed';
