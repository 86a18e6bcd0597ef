import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { approveAction, permissionReport, resolvePermissions, type PermissionReport } from '@toolbridge/adapter-kit';
import type { ApprovalAnswer, ApprovalRequest, CallContext, ChatContext, PermissionLevel, ToolRequest } from '@toolbridge/core';
import { FILE_TOOLS, READ_TOOLS } from './extension.js';

const READ = new Set<string>(READ_TOOLS);

const NOTES: Record<PermissionLevel, string> = {
  'read-only': "Toolbridge's Pi extension: only read, grep, find and ls run; every other tool call is refused",
  'workspace-write':
    "Toolbridge's Pi extension: write and edit only inside the working directory and additionalDirs; bash is refused unless the chat asks for approvals (a command can write anywhere)",
  full: 'Pi runs every tool, anywhere, without a sandbox',
};

/** A chat's permission level as Pi runs it, and what to tell the caller about it. */
export interface PiPermissions {
  level: PermissionLevel;
  roots: string[];
  metadata: PermissionReport;
}

export function piPermissions(
  request: Pick<ToolRequest, 'permissions' | 'additionalDirs'>,
  ctx: Pick<CallContext, 'config' | 'maxPermissions'> & { cwd: string },
): PiPermissions {
  const resolved = resolvePermissions(request, ctx);
  return {
    level: resolved.level,
    roots: [ctx.cwd, ...request.additionalDirs],
    metadata: permissionReport(resolved, resolved.level, NOTES[resolved.level]),
  };
}

/** `TOOLBRIDGE_PI_POLICY` of a one-shot run: what the extension decides by when nobody can be asked. */
export function policyEnv(p: PiPermissions): Record<string, string> {
  return { TOOLBRIDGE_PI_POLICY: JSON.stringify({ level: p.level, roots: p.roots }) };
}

function fullPath(p: unknown, cwd: string): string {
  const s = String(p ?? '').replace(/^@/, '');
  const home = s === '~' || s.startsWith('~/') ? path.join(homedir(), s.slice(1)) : s;
  return path.resolve(cwd, home);
}

/** One tool call Pi is about to make, as the approval request the kit decides. */
export function approvalOf(tool: string, input: Record<string, unknown>, cwd: string): ApprovalRequest {
  if (tool === 'bash') {
    const command = typeof input.command === 'string' ? input.command : '';
    return { kind: 'command', title: `Run ${command.split('\n')[0]!.slice(0, 120)}`, command, cwd };
  }
  const field = FILE_TOOLS[tool];
  if (field) {
    const file = fullPath(input[field], cwd);
    const kind = tool === 'write' && !existsSync(file) ? 'add' : 'update';
    return { kind: 'file_change', title: `${tool === 'write' ? 'Write' : 'Edit'} ${file}`, changes: [{ path: file, kind }], cwd };
  }
  return { kind: 'tool_call', title: `Use ${tool}`, tool, input, cwd };
}

/**
 * The decision on one tool call of a warm turn (the extension asked): reads always run; at
 * workspace-write a command is refused unless the caller is asked (a command can write anywhere,
 * the same rule as OpenCode's); the rest goes through the kit's `approveAction` (the level first,
 * then `ctx.approvals` when the chat asked for approvals).
 */
export async function decideToolCall(
  tool: string,
  input: Record<string, unknown>,
  p: PiPermissions,
  ctx: Pick<ChatContext, 'approvals' | 'cwd'>,
): Promise<ApprovalAnswer> {
  if (READ.has(tool)) return { allow: true };
  const action = approvalOf(tool, input, ctx.cwd);
  const dirs = p.roots.slice(1);
  if (p.level === 'workspace-write' && tool === 'bash' && !ctx.approvals) {
    return { allow: false, message: 'Refused by Toolbridge: commands need the full permission level or approvals (workspace-write)' };
  }
  return approveAction(ctx, p.level, action, dirs);
}
