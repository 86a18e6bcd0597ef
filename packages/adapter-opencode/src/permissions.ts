import path from 'node:path';
import { permissionReport, resolvePermissions, type PermissionReport } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, type CallContext, type PermissionLevel, type ToolRequest } from '@toolbridge/core';
import { TOOL_ID } from './config.js';

/** OpenCode's permission actions; `ask` is never used: nobody is there to answer (run auto-rejects, serve hangs). */
export type RuleAction = 'allow' | 'deny';
/** OpenCode's `permission` config: a tool's action, or actions by pattern (the last matching pattern wins). */
export type PermissionConfig = Record<string, RuleAction | Record<string, RuleAction>>;

/** A chat's permission level as OpenCode applies it, and what to tell the caller about it. */
export interface OpenCodePermissions {
  level: PermissionLevel;
  /** The `permission` section of OpenCode's config (`OPENCODE_CONFIG_CONTENT` for run). */
  config: PermissionConfig;
  /** `result.metadata.permissions`. */
  metadata: PermissionReport;
}

/**
 * Always denied: a headless chat cannot answer OpenCode's questions or switch it into plan mode
 * (`opencode run` denies these itself; `serve` sessions would otherwise hang on them).
 */
const HEADLESS: PermissionConfig = { question: 'deny', plan_enter: 'deny', plan_exit: 'deny' };

/**
 * `.env` files are `ask` by OpenCode's defaults, which would stop a run (or hang serve): denied
 * below full, the loop then goes on (the model is told the rule), `.env.example` stays readable.
 */
const READ: Record<string, RuleAction> = { '*': 'allow', '*.env': 'deny', '*.env.*': 'deny', '*.env.example': 'allow' };

const NOTES: Record<PermissionLevel, string> = {
  'read-only':
    'OpenCode permission rules: edit, write, patch, bash, webfetch and web search are removed from the model; files can be read inside the working directory and additionalDirs only (.env files not at all)',
  'workspace-write':
    "OpenCode permission rules: file edits and writes only inside the working directory and additionalDirs; bash is allowed and OpenCode's outside-directory check for commands is a heuristic, not a sandbox (redirections, scripts, variables or ../ paths can write anywhere the user can)",
  full: 'OpenCode permission rules: every tool allowed, anywhere, without asking',
};

/** `external_directory` rules: outside the working directory only the additional dirs. */
function outside(dirs: readonly string[]): Record<string, RuleAction> {
  const rules: Record<string, RuleAction> = { '*': 'deny' };
  for (const dir of dirs) rules[path.join(dir, '*')] = 'allow';
  return rules;
}

/** The permission config of a level, for both transports (serve takes it as a session ruleset, see `sessionRules`). */
export function permissionConfig(level: PermissionLevel, additionalDirs: readonly string[]): PermissionConfig {
  if (level === 'full') return { '*': 'allow', external_directory: 'allow', doom_loop: 'allow', read: 'allow', ...HEADLESS };
  const common: PermissionConfig = {
    '*': 'allow',
    read: READ,
    external_directory: outside(additionalDirs),
    doom_loop: 'deny',
    ...HEADLESS,
  };
  if (level === 'workspace-write') return { ...common, edit: 'allow', bash: 'allow', webfetch: 'allow' };
  return { ...common, edit: 'deny', bash: 'deny', webfetch: 'deny', websearch: 'deny', codesearch: 'deny' };
}

/** The same rules as serve's session ruleset (`POST /session {permission:[…]}`), in order. */
export function sessionRules(config: PermissionConfig): Array<{ permission: string; pattern: string; action: RuleAction }> {
  return Object.entries(config).flatMap(([permission, rule]) =>
    typeof rule === 'string'
      ? [{ permission, pattern: '*', action: rule }]
      : Object.entries(rule).map(([pattern, action]) => ({ permission, pattern, action })),
  );
}

/** The level of one chat (request, else the `permissions` config key, else read-only, decided by the kit) as OpenCode rules. */
export function opencodePermissions(
  request: Pick<ToolRequest, 'permissions' | 'additionalDirs'>,
  ctx: Pick<CallContext, 'config' | 'maxPermissions'>,
): OpenCodePermissions {
  const resolved = resolvePermissions(request, ctx);
  const { level } = resolved;
  return {
    level,
    config: permissionConfig(level, request.additionalDirs),
    metadata: permissionReport(resolved, level, NOTES[level]),
  };
}

/**
 * The environment of a run with the rules in `OPENCODE_CONFIG_CONTENT`, merged into what the user
 * already put there (providers, models); our `permission` section replaces theirs, so a chat gets
 * exactly its level.
 */
export function envWithPermissions(env: NodeJS.ProcessEnv, config: PermissionConfig): NodeJS.ProcessEnv {
  let base: Record<string, unknown> = {};
  const raw = env.OPENCODE_CONFIG_CONTENT;
  if (raw && raw.trim()) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) base = parsed as Record<string, unknown>;
      else throw new Error('not an object');
    } catch {
      throw new ProviderExecutionError('OPENCODE_CONFIG_CONTENT is not a JSON object, so the permission rules cannot be added to it', {
        toolId: TOOL_ID,
      });
    }
  }
  // OPENCODE_PERMISSION would be merged over the config and could widen the level.
  const { OPENCODE_PERMISSION: _dropped, ...rest } = env;
  return { ...rest, OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...base, permission: config }) };
}
