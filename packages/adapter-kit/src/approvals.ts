import { isAbsolute, relative, resolve } from 'node:path';
import type { ApprovalAnswer, ApprovalRequest, ChatContext, PermissionLevel } from '@toolbridge/core';

/** Whether `path` (absolute, or relative to `cwd`) lies inside one of `roots`. */
export function insideRoots(path: string, cwd: string, roots: readonly string[]): boolean {
  const full = resolve(cwd, path);
  return roots.some((root) => {
    const rel = relative(resolve(root), full);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

/**
 * The one place an adapter decides a side-effecting action its tool asked about: the permission
 * level first (the ceiling, whatever the tool's own approval would allow; refused without asking),
 * then the caller through `ctx.approvals` when the request asked `approvals: "ask"`, else allowed
 * (the level alone decides, as without approvals).
 *
 * - `read-only`: every asked action is refused.
 * - `workspace-write`: a file change outside `cwd` and `additionalDirs` is refused; the rest is asked.
 * - `full`: everything is asked.
 */
export async function approveAction(
  ctx: Pick<ChatContext, 'approvals' | 'cwd'>,
  level: PermissionLevel,
  action: ApprovalRequest,
  additionalDirs: readonly string[] = [],
): Promise<ApprovalAnswer> {
  const refusal = refusedByLevel(ctx.cwd, level, action, additionalDirs);
  if (refusal) return { allow: false, message: refusal };
  return ctx.approvals ? ctx.approvals.ask(action) : { allow: true };
}

/** Why the level forbids `action`, or undefined when it allows it. */
export function refusedByLevel(
  cwd: string,
  level: PermissionLevel,
  action: ApprovalRequest,
  additionalDirs: readonly string[] = [],
): string | undefined {
  if (level === 'read-only') return `Refused by Toolbridge: the permission level is read-only (${action.title})`;
  if (level === 'workspace-write' && action.kind === 'file_change') {
    const outside = (action.changes ?? []).find((c) => !insideRoots(c.path, cwd, [cwd, ...additionalDirs]));
    if (outside) return `Refused by Toolbridge: workspace-write allows changes only inside the working directory (${outside.path})`;
  }
  return undefined;
}
