import { PERMISSION_LEVELS, type CallContext, type PermissionLevel, type ToolRequest } from '@toolbridge/core';

export interface ResolvedPermissions {
  level: PermissionLevel;
  /** Where the level came from. */
  source: 'request' | 'tool-config' | 'config' | 'default';
}

/**
 * The permission level of one chat, decided in one place for every agent: the request's level,
 * else the tool's own config key (given by the adapter, e.g. `codexSandbox` mapped to a level),
 * else the `permissions` config key, else `read-only`.
 */
export function resolvePermissions(
  request: Pick<ToolRequest, 'permissions'>,
  ctx: Pick<CallContext, 'config'>,
  toolDefault?: PermissionLevel,
): ResolvedPermissions {
  if (request.permissions) return { level: request.permissions, source: 'request' };
  if (toolDefault) return { level: toolDefault, source: 'tool-config' };
  const configured = ctx.config.permissions;
  if (PERMISSION_LEVELS.includes(configured as PermissionLevel)) return { level: configured as PermissionLevel, source: 'config' };
  return { level: 'read-only', source: 'default' };
}

/**
 * `result.metadata.permissions`, the same shape from every agent: the level asked for (or
 * defaulted), the level the tool was actually run with (never more; less where it cannot honour
 * the level exactly, with a note saying how), and where the level came from.
 */
export interface PermissionReport {
  requested: PermissionLevel;
  applied: PermissionLevel;
  source: ResolvedPermissions['source'];
  note?: string;
}

export function permissionReport(
  resolved: ResolvedPermissions,
  applied: PermissionLevel = resolved.level,
  note?: string,
): PermissionReport {
  return { requested: resolved.level, applied, source: resolved.source, ...(note ? { note } : {}) };
}
