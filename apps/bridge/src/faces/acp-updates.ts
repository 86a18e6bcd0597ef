import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { Activity, Approval } from '@toolbridge/core';

/** How an activity step shows in an editor: ACP's tool kinds. */
function kindOf(activity: Activity): acp.ToolKind {
  switch (activity.kind) {
    case 'command':
      return 'execute';
    case 'file_change':
      return activity.changes.every((c) => c.kind === 'delete') ? 'delete' : 'edit';
    case 'web_search':
      return 'fetch';
    case 'reasoning':
      return 'think';
    default:
      return 'other';
  }
}

const STATUS: Record<Activity['status'], acp.ToolCallStatus> = {
  started: 'in_progress',
  updated: 'in_progress',
  completed: 'completed',
  failed: 'failed',
};

const text = (t: string): acp.ToolCallContent => ({ type: 'content', content: { type: 'text', text: t } });

/** ACP wants absolute paths in locations. */
const locations = (changes: { path: string }[] | undefined, cwd: string): acp.ToolCallLocation[] =>
  (changes ?? []).map((c) => ({ path: path.resolve(cwd, c.path) }));

/**
 * One activity step as a `session/update`: `plan` for a plan, else `tool_call` the first time a
 * step's id is seen and `tool_call_update` after that.
 */
export function activityUpdate(activity: Activity, seen: Set<string>, cwd: string): acp.SessionUpdate {
  if (activity.kind === 'plan')
    return {
      sessionUpdate: 'plan',
      entries: activity.items.map((i) => ({ content: i.text, priority: 'medium', status: i.done ? 'completed' : 'pending' })),
    };
  const rawInput =
    activity.kind === 'command'
      ? { command: activity.command }
      : activity.kind === 'tool_call'
        ? { tool: activity.server ? `${activity.server}.${activity.name}` : activity.name, input: activity.input }
        : activity.kind === 'web_search'
          ? { query: activity.query }
          : undefined;
  const content =
    activity.kind === 'command' && activity.outputTail
      ? [text(activity.outputTail)]
      : activity.kind === 'tool_call' && activity.output
        ? [text(activity.output)]
        : activity.kind === 'reasoning'
          ? [text(activity.text)]
          : undefined;
  const fields = {
    toolCallId: activity.id,
    title: activity.title,
    kind: kindOf(activity),
    status: STATUS[activity.status],
    ...(activity.kind === 'file_change' ? { locations: locations(activity.changes, cwd) } : {}),
    ...(rawInput ? { rawInput } : {}),
    ...(content ? { content } : {}),
  };
  if (seen.has(activity.id)) return { sessionUpdate: 'tool_call_update', ...fields };
  seen.add(activity.id);
  return { sessionUpdate: 'tool_call', ...fields };
}

/** The permission options of an approval, in ACP's words; the option ids are Toolbridge's decisions. */
const OPTION: Record<Approval['options'][number], acp.PermissionOption> = {
  allow: { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  allow_session: { optionId: 'allow_session', name: 'Allow for this session', kind: 'allow_always' },
  deny: { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
};

/** An asked action as `session/request_permission` params. */
export function permissionRequest(sessionId: string, approval: Approval, cwd: string): acp.RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: approval.id,
      title: approval.title,
      kind: approval.kind === 'command' ? 'execute' : approval.kind === 'file_change' ? 'edit' : 'other',
      status: 'pending',
      ...(approval.changes ? { locations: locations(approval.changes, approval.cwd ?? cwd) } : {}),
      rawInput: approval.command !== undefined ? { command: approval.command, cwd: approval.cwd } : (approval.input ?? null),
    },
    options: approval.options.map((o) => OPTION[o]),
  };
}
