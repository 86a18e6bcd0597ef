import {
  InvalidRequestError,
  toErrorEnvelope,
  type Activity,
  type ChatRequest,
  type ContentPart,
  type FallbackChatResponse,
  type PermissionLevel,
  type Approval,
  type ApprovalReply,
} from '@toolbridge/core';
import { validateChatRequest } from '@toolbridge/core/runtime';
import type { ChatOptions, Toolbridge } from 'toolbridge';
import { httpError } from '../errors.js';

/**
 * One chat turn as the MCP server and the ACP agent run it: the library's fallback chat (one tool
 * when `toolId` is given, the configured chain when neither `toolId` nor `providers` is), with its
 * events handed to the face as they come. Neither face re-implements chat, sessions or fallback.
 */
export interface FaceTurn {
  content: string | ContentPart[];
  toolId?: string;
  providers?: string[];
  sessionId?: string;
  cwd?: string;
  permissions?: PermissionLevel;
  schema?: Record<string, unknown>;
  timeoutMs?: number;
  approvals?: 'ask';
}

/** How a face answers one asked action (the library's `onApproval` call option, `approvals: "ask"`). */
export type ApprovalHandler = (approval: Approval) => Promise<ApprovalReply>;

export interface FaceSettings {
  toolbridge: Toolbridge;
  /** The ceiling of every chat (`undefined`: none); a turn asking for more than allowed is refused. */
  maxPermissions?: PermissionLevel;
  /** Used when the turn has no `timeoutMs`. */
  chatTimeoutMs?: number;
}

export interface FaceTurnHooks {
  signal?: AbortSignal;
  onDelta?(text: string): void;
  onActivity?(activity: Activity): void;
  onApproval?: ApprovalHandler;
}

export async function runFaceTurn(settings: FaceSettings, turn: FaceTurn, hooks: FaceTurnHooks = {}): Promise<FallbackChatResponse> {
  if (turn.toolId !== undefined && turn.providers !== undefined) throw new InvalidRequestError('give "toolId" or "providers", not both');
  if (turn.permissions === 'full' && settings.maxPermissions)
    throw httpError(
      'forbidden',
      'permissions "full" is refused: start Toolbridge with --allow-full-permissions (or the bridge with a token)',
    );
  const fields: ChatRequest = {
    messages: [{ role: 'user', content: turn.content }],
    ...(turn.sessionId ? { sessionId: turn.sessionId } : {}),
    ...(turn.cwd ? { cwd: turn.cwd } : {}),
    ...(turn.permissions ? { permissions: turn.permissions } : {}),
    ...(turn.schema ? { responseFormat: { type: 'json_schema', schema: turn.schema } } : {}),
    ...(turn.approvals ? { approvals: turn.approvals } : {}),
  };
  const request = await validateChatRequest(fields, 'http');
  const timeoutMs = turn.timeoutMs ?? settings.chatTimeoutMs;
  // `onApproval` is the library's call option for `approvals: "ask"`; it is passed only when asked.
  const options: ChatOptions & { onApproval?: ApprovalHandler } = {
    ...(turn.toolId !== undefined ? { providers: [turn.toolId] } : turn.providers ? { providers: turn.providers } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(hooks.signal ? { signal: hooks.signal } : {}),
    ...(settings.maxPermissions ? { maxPermissions: settings.maxPermissions } : {}),
    ...(turn.approvals && hooks.onApproval ? { onApproval: hooks.onApproval } : {}),
  };
  for await (const event of settings.toolbridge.streamChat(request, options)) {
    if (event.type === 'delta') hooks.onDelta?.(event.text);
    else if (event.type === 'activity') hooks.onActivity?.(event.activity);
    else if (event.type === 'done') return event.response;
  }
  throw httpError('internal_error', 'the chat ended without an answer');
}

/** One line per activity step, for a host's progress display: "command: npm test". */
export function activityLine(activity: Activity): string {
  const detail = (() => {
    switch (activity.kind) {
      case 'command':
        return activity.command;
      case 'file_change':
        return activity.changes.map((c) => `${c.kind} ${c.path}`).join(', ') || activity.title;
      case 'tool_call':
        return activity.server ? `${activity.server}.${activity.name}` : activity.name;
      case 'web_search':
        return activity.query;
      default:
        return activity.title;
    }
  })();
  const line = `${activity.kind}: ${detail}`;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** An error as a face shows it: the envelope's code and message (never a stack or inner detail). */
export function faceError(err: unknown): { code: string; message: string; status: number } {
  const { status, body } = toErrorEnvelope(err);
  return { code: body.error.code, message: body.error.message, status };
}
