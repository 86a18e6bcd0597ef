import path from 'node:path';
import { permissionReport, resolvePermissions, type PermissionReport } from '@toolbridge/adapter-kit';
import type { CallContext, PermissionLevel, ToolRequest } from '@toolbridge/core';
import { userConfigContent } from './config-content.js';
import { mcpToolRules } from './mcp-servers.js';

/**
 * OpenCode's permission actions. `ask` only with approvals on the warm transport, where the
 * adapter answers every `permission.asked`; otherwise nobody is there to answer (run auto-rejects,
 * serve hangs).
 */
export type RuleAction = 'allow' | 'deny' | 'ask';
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
    'OpenCode permission rules: file edits and writes only inside the working directory and additionalDirs; bash is refused, because OpenCode has no sandbox (its outside-directory check for commands is a heuristic: redirections, scripts or ../ paths write anywhere the user can). Ask for full, or for approvals, to run commands',
  full: 'OpenCode permission rules: every tool allowed, anywhere, without asking',
};

/** With approvals (`approvals: "ask"`, warm transport only): what is asked, and what an allowed command can do. */
const ASKING_NOTES: Partial<Record<PermissionLevel, string>> = {
  'workspace-write':
    'OpenCode permission rules: every command, file edit and tool that is not read-only is asked before it runs; edits outside the working directory and additionalDirs are refused unasked; an allowed command runs without a sandbox (OpenCode has none), so it can write anywhere the user can; subagents (task) are refused',
  full: 'OpenCode permission rules: every command, file edit and tool that is not read-only is asked before it runs, anywhere; subagents (task) are refused',
};

/**
 * Tools that only read or only talk to the model: never asked with approvals (reads run freely).
 * Every other tool (MCP tools included) is asked as a tool call.
 */
const READ_ONLY_TOOLS = ['glob', 'grep', 'list', 'lsp', 'todowrite', 'todoread', 'webfetch', 'websearch', 'codesearch', 'skill'];

/** `external_directory` rules: outside the working directory only the additional dirs. */
function outside(dirs: readonly string[]): Record<string, RuleAction> {
  const rules: Record<string, RuleAction> = { '*': 'deny' };
  for (const dir of dirs) rules[path.join(dir, '*')] = 'allow';
  return rules;
}

/**
 * The permission config of a level, for both transports (serve takes it as a session ruleset, see
 * `sessionRules`). OpenCode has no sandbox, so a level means the same as on the other agents only
 * through these rules: below full, commands are refused, or asked with `asking` (approvals).
 * `asking` asks before every command, edit and tool that is not read-only: the adapter answers
 * each `permission.asked` through the kit's `approveAction`.
 */
export function permissionConfig(level: PermissionLevel, additionalDirs: readonly string[], approvals = false): PermissionConfig {
  // read-only has nothing to ask: every side effect is refused.
  const asking = approvals && level !== 'read-only';
  const ask: PermissionConfig = asking
    ? { '*': 'ask', ...Object.fromEntries(READ_ONLY_TOOLS.map((t) => [t, 'allow' as const])), edit: 'ask', bash: 'ask', task: 'deny' }
    : { '*': 'allow' };
  if (level === 'full') return { ...ask, external_directory: 'allow', doom_loop: 'allow', read: 'allow', ...HEADLESS };
  const common: PermissionConfig = {
    ...ask,
    read: READ,
    external_directory: outside(additionalDirs),
    doom_loop: 'deny',
    ...HEADLESS,
  };
  if (level === 'workspace-write')
    return asking ? { ...common, webfetch: 'allow' } : { ...common, edit: 'allow', bash: 'deny', webfetch: 'allow' };
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

/**
 * The level of one chat (request, else the `permissions` config key, else read-only, decided by
 * the kit) as OpenCode rules; `asking` with approvals (`ctx.approvals`, warm transport).
 */
export function opencodePermissions(
  request: Pick<ToolRequest, 'permissions' | 'additionalDirs' | 'mcpServers'>,
  ctx: Pick<CallContext, 'config' | 'maxPermissions'>,
  asking = false,
): OpenCodePermissions {
  const resolved = resolvePermissions(request, ctx);
  const { level } = resolved;
  return {
    level,
    config: { ...permissionConfig(level, request.additionalDirs, asking), ...mcpToolRules(request.mcpServers, level) },
    metadata: permissionReport(resolved, level, (asking ? ASKING_NOTES[level] : undefined) ?? NOTES[level]),
  };
}

/**
 * The environment of a run with the rules in `OPENCODE_CONFIG_CONTENT`, merged into what the user
 * already put there (providers, models); our `permission` section replaces theirs, so a chat gets
 * exactly its level.
 */
export function envWithPermissions(env: NodeJS.ProcessEnv, config: PermissionConfig): NodeJS.ProcessEnv {
  const base = userConfigContent(env, 'the permission rules');
  // OPENCODE_PERMISSION would be merged over the config and could widen the level.
  const { OPENCODE_PERMISSION: _dropped, ...rest } = env;
  return { ...rest, OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...base, permission: config }) };
}
