import { PERMISSION_LEVELS, type CallContext, type PermissionLevel, type ToolRequest } from '@toolbridge/core';

export interface ResolvedPermissions {
  /** The level to run with: what was asked, or the call's ceiling when that asked for more. */
  level: PermissionLevel;
  /** Where the level asked for came from. */
  source: 'request' | 'tool-config' | 'config' | 'default';
  /** The level asked for, when the call's ceiling (`ctx.maxPermissions`) narrowed it to `level`. */
  narrowedFrom?: PermissionLevel;
}

const rank = (level: PermissionLevel) => PERMISSION_LEVELS.indexOf(level);

/**
 * The permission level of one chat, decided in one place for every agent: the request's level,
 * else the tool's own config key (given by the adapter, e.g. `codexSandbox` mapped to a level),
 * else the `permissions` config key, else `read-only`; never above the call's `maxPermissions`.
 */
export function resolvePermissions(
  request: Pick<ToolRequest, 'permissions'>,
  ctx: Pick<CallContext, 'config' | 'maxPermissions'>,
  toolDefault?: PermissionLevel,
): ResolvedPermissions {
  const asked = askedLevel(request, ctx, toolDefault);
  const ceiling = ctx.maxPermissions;
  if (ceiling && rank(asked.level) > rank(ceiling)) return { level: ceiling, source: asked.source, narrowedFrom: asked.level };
  return asked;
}

function askedLevel(
  request: Pick<ToolRequest, 'permissions'>,
  ctx: Pick<CallContext, 'config'>,
  toolDefault?: PermissionLevel,
): ResolvedPermissions {
  if (request.permissions) return { level: request.permissions, source: 'request' };
  if (toolDefault) return { level: toolDefault, source: 'tool-config' };
  // One of PERMISSION_LEVELS when set: core's config schema checked it.
  const configured = ctx.config.permissions as PermissionLevel | undefined;
  return configured ? { level: configured, source: 'config' } : { level: 'read-only', source: 'default' };
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
  const narrowed = resolved.narrowedFrom
    ? `${resolved.narrowedFrom} is above this call's limit (maxPermissions ${resolved.level}, which the bridge sets when it runs without a token)`
    : undefined;
  const notes = [narrowed, note].filter(Boolean).join('; ');
  return { requested: resolved.narrowedFrom ?? resolved.level, applied, source: resolved.source, ...(notes ? { note: notes } : {}) };
}
