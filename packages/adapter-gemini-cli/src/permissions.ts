import type { PermissionLevel } from '@toolbridge/core';

/** Tools a level must never run, whatever the user's own settings and saved approvals allow. */
export const DENIED_TOOLS: Readonly<Record<PermissionLevel, readonly string[]>> = {
  // The shell is not confined to the workspace, and MCP servers can do anything: neither is read-only.
  'read-only': ['run_shell_command', 'write_file', 'replace', 'mcp_*'],
  'workspace-write': ['run_shell_command', 'mcp_*'],
  full: [],
};

/** What a level cannot grant exactly, for `result.metadata.permissions.note`. */
export const PERMISSION_NOTES: Readonly<Partial<Record<PermissionLevel, string>>> = {
  'read-only': 'the shell and MCP tools are denied below full: neither is confined to reading',
  'workspace-write': 'the shell and MCP tools are denied below full: neither is confined to the workspace',
};

/**
 * An admin-tier policy (`--admin-policy`) denying a level's tools. Admin rules outrank user
 * policies and "always allow" approvals, and a global `deny` removes the tool from what the
 * model is offered. Undefined when the level denies nothing.
 */
export function policyToml(level: PermissionLevel): string | undefined {
  const denied = DENIED_TOOLS[level];
  if (denied.length === 0) return undefined;
  const message = JSON.stringify(`Not allowed at the permission level "${level}" Toolbridge runs this chat with.`);
  const rules = denied.map(
    (tool) => `[[rule]]\ntoolName = ${JSON.stringify(tool)}\ndecision = "deny"\npriority = 999\ndenyMessage = ${message}\n`,
  );
  return `# Written by Toolbridge for one chat: what the permission level does not allow.\n${rules.join('\n')}`;
}
