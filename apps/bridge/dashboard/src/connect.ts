/** The "Connect" section: where MCP hosts, ACP editors and OpenAI clients reach this bridge (pure). */

export interface ConnectEntry {
  /** What a person connects. */
  title: string;
  /** The endpoint or the command to configure. */
  value: string;
  hint: string;
}

export function connectEntries(origin: string): ConnectEntry[] {
  return [
    {
      title: 'MCP over HTTP',
      value: `${origin}/mcp`,
      hint: 'Streamable HTTP for MCP hosts (VS Code, Cursor): tools chat, discover, health; send the bridge token if it has one',
    },
    {
      title: 'MCP over stdio',
      value: 'npx -y @toolbridge/bridge mcp',
      hint: 'The command for Claude Code (claude mcp add toolbridge -- …), Codex (config.toml, default_tools_approval_mode = "approve") and Cursor',
    },
    {
      title: 'ACP agent',
      value: 'npx -y @toolbridge/bridge acp',
      hint: 'The agent command for Zed (agent_servers), JetBrains and Neovim: every tool, or auto for the fallback chain',
    },
    { title: 'OpenAI-compatible API', value: `${origin}/v1`, hint: 'Base URL for any OpenAI client; the bridge token is the API key' },
  ];
}
