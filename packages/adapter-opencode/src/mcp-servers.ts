import type { McpServerEntry, PermissionLevel } from '@toolbridge/core';
import { userConfigContent } from './config-content.js';
import type { PermissionConfig } from './permissions.js';

/** One server of OpenCode's `mcp` config section. */
export type OpenCodeMcpServer =
  | { type: 'local'; command: string[]; environment: Record<string, string>; enabled: true }
  | { type: 'remote'; url: string; headers: Record<string, string>; enabled: true };

/** The request's `mcpServers` as OpenCode's `mcp` section (a local server's command and arguments are one list). */
export function opencodeMcpConfig(servers: readonly McpServerEntry[]): Record<string, OpenCodeMcpServer> {
  return Object.fromEntries(
    servers.map((s) => [
      s.name,
      'command' in s
        ? { type: 'local', command: [s.command, ...(s.args ?? [])], environment: s.env ?? {}, enabled: true }
        : { type: 'remote', url: s.url, headers: s.headers ?? {}, enabled: true },
    ]),
  );
}

/**
 * The chat's MCP servers in `OPENCODE_CONFIG_CONTENT` (the environment, never argv: `environment`
 * and `headers` hold secrets), beside what the user put there. The same for both transports: a
 * run reads it, and a warm `opencode serve` started with it has exactly these servers, so the
 * warm pool (keyed by the environment) gives each MCP set-up its own server. `POST /mcp` on a
 * shared server would add them per directory for the server's whole life: the next chat in that
 * directory would get them too.
 */
export function envWithMcpServers(env: NodeJS.ProcessEnv, servers: readonly McpServerEntry[] | undefined): NodeJS.ProcessEnv {
  if (!servers?.length) return env;
  const base = userConfigContent(env, 'the MCP servers');
  const mcp = { ...(base.mcp as Record<string, unknown> | undefined), ...opencodeMcpConfig(servers) };
  return { ...env, OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...base, mcp }) };
}

/**
 * OpenCode offers a server's tools as `<server>_<tool>`, and its permission rules match tool names
 * by pattern. At read-only every one of them is denied: read-only allows no action the agent would
 * ask about, and an MCP tool is not confined to the working directory. Above it they follow the
 * level's rules (`*`: allowed, or asked with approvals).
 */
export function mcpToolRules(servers: readonly McpServerEntry[] | undefined, level: PermissionLevel): PermissionConfig {
  if (level !== 'read-only' || !servers?.length) return {};
  return Object.fromEntries(servers.map((s) => [`${s.name}_*`, 'deny' as const]));
}
