import { Type } from '@sinclair/typebox';

/**
 * MCP servers a chat hands its agent: the agent gets their tools for that chat, through its own
 * mechanism. An entry is a local server (`command`, `args`, `env`) or a remote one (`url`,
 * `headers`); which one is checked by request validation. `env` and `headers` often hold secrets:
 * they never reach logs, argv or error messages.
 */
export const McpServerEntry = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'How the agent names the server (its tools show as server.tool)' }),
    command: Type.Optional(Type.String({ minLength: 1, description: 'A local server: the program to start (stdio)' })),
    args: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    env: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String())),
    url: Type.Optional(Type.String({ minLength: 1, description: 'A remote server: its Streamable HTTP endpoint (http or https)' })),
    headers: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,128}$' }), Type.String())),
  },
  { additionalProperties: false },
);

/** One MCP server, as adapters get it (validated: exactly one of `command` / `url`). */
export type McpServerEntry =
  | { name: string; command: string; args?: string[]; env?: Record<string, string> }
  | { name: string; url: string; headers?: Record<string, string> };

/** The chat request field (merged into `chatRequestFields`). */
export const mcpServerRequestFields = {
  mcpServers: Type.Optional(
    Type.Array(McpServerEntry, { maxItems: 16, description: 'MCP servers whose tools the agent gets for this chat' }),
  ),
};
