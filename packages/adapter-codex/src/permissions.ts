import { permissionReport, resolvePermissions, type PermissionReport } from '@toolbridge/adapter-kit';
import type { CallContext, PermissionLevel, ToolRequest } from '@toolbridge/core';
import { codexConfig, LEVEL_OF, SANDBOX_OF, type CodexSandboxMode } from './config.js';

/** A chat's permission level as Codex applies it, and what to tell the caller about it. */
export interface CodexPermissions {
  sandbox: CodexSandboxMode;
  /** Config overrides that keep Codex's sandbox to what the level grants (`-c key=value` for exec, `config` for app-server). */
  config: Record<string, boolean>;
  /** `result.metadata.permissions`. */
  metadata: PermissionReport;
}

/**
 * Codex's `workspace-write` also lets commands write `/tmp` and `$TMPDIR`, which the level does
 * not grant: those two are taken out, so only the working directory and `additionalDirs` are
 * writable (measured: a write to /tmp then fails with "Read-only file system", while a cwd under
 * /tmp stays writable).
 */
const EXACT_WORKSPACE = { 'sandbox_workspace_write.exclude_slash_tmp': true, 'sandbox_workspace_write.exclude_tmpdir_env_var': true };

/** Where Codex's sandbox is narrower than the level (measured with the real 0.169 sandbox, bubblewrap + seccomp). */
const NOTES: Partial<Record<PermissionLevel, string>> = {
  'read-only': 'Codex sandbox read-only: commands can read files but not write them, and have no network access',
  'workspace-write':
    'Codex sandbox workspace-write: writes only inside the working directory and additionalDirs, except .git, .codex and .agents at their top, which stay read-only; commands have no network access',
};

/**
 * The level of one chat (request, else `codexSandbox`, else `permissions`, else read-only, decided
 * by the kit) mapped to Codex's sandbox. The three levels map one to one; Codex never asks for
 * approval in `exec` (and the warm transport sets `approvalPolicy: "never"`), so nothing is granted
 * beyond the sandbox.
 */
export function codexPermissions(
  request: Pick<ToolRequest, 'permissions'>,
  ctx: Pick<CallContext, 'config' | 'maxPermissions'>,
): CodexPermissions {
  const configured = codexConfig.read(ctx.config).sandbox;
  const resolved = resolvePermissions(request, ctx, configured ? LEVEL_OF[configured] : undefined);
  const { level } = resolved;
  const sandbox = SANDBOX_OF[level];
  const note = NOTES[level];
  return {
    sandbox,
    config: sandbox === 'workspace-write' ? EXACT_WORKSPACE : {},
    metadata: permissionReport(resolved, level, note),
  };
}
