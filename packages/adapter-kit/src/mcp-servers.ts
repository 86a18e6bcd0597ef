import type { McpServerEntry } from '@toolbridge/core';

/** A server of the `mcpServers` JSON object most agents read (Claude Code `--mcp-config`, Gemini settings, Copilot, Cursor). */
export type McpConfigServer =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { type: 'http'; url: string; headers: Record<string, string> };

/** `{ mcpServers: { name: {...} } }`: write it to a private file (env and headers hold secrets), never to argv. */
export function mcpConfigJson(servers: readonly McpServerEntry[]): { mcpServers: Record<string, McpConfigServer> } {
  const mcpServers: Record<string, McpConfigServer> = {};
  for (const s of servers)
    mcpServers[s.name] =
      'command' in s
        ? { type: 'stdio', command: s.command, args: s.args ?? [], env: s.env ?? {} }
        : { type: 'http', url: s.url, headers: s.headers ?? {} };
  return { mcpServers };
}

/** ACP's `McpServer` (`session/new.mcpServers`): env and headers as name/value lists. */
export type AcpMcpServer =
  | { name: string; command: string; args: string[]; env: Array<{ name: string; value: string }> }
  | { type: 'http'; name: string; url: string; headers: Array<{ name: string; value: string }> };

const pairs = (record: Record<string, string> = {}) => Object.entries(record).map(([name, value]) => ({ name, value }));

/** The request's `mcpServers` as ACP's `session/new.mcpServers` (for agents driven over ACP). */
export function acpMcpServers(servers: readonly McpServerEntry[] = []): AcpMcpServer[] {
  return servers.map((s) =>
    'command' in s
      ? { name: s.name, command: s.command, args: s.args ?? [], env: pairs(s.env) }
      : { type: 'http', name: s.name, url: s.url, headers: pairs(s.headers) },
  );
}
