import { describe, expect, it } from '@jest/globals';
import { acpMcpServers, mcpConfigJson } from './mcp-servers.js';

const servers = [
  { name: 'local', command: 'node', args: ['server.js'], env: { TOKEN: 't' } },
  { name: 'remote', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer b' } },
  { name: 'bare', command: 'srv' },
];

describe('MCP server lists in each agent’s shape', () => {
  it('as the mcpServers JSON object (Claude Code --mcp-config, Gemini/Copilot settings)', () => {
    expect(mcpConfigJson(servers)).toEqual({
      mcpServers: {
        local: { type: 'stdio', command: 'node', args: ['server.js'], env: { TOKEN: 't' } },
        remote: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer b' } },
        bare: { type: 'stdio', command: 'srv', args: [], env: {} },
      },
    });
  });

  it('as ACP session/new.mcpServers (name/value lists)', () => {
    expect(acpMcpServers(servers)).toEqual([
      { name: 'local', command: 'node', args: ['server.js'], env: [{ name: 'TOKEN', value: 't' }] },
      { type: 'http', name: 'remote', url: 'https://mcp.example/mcp', headers: [{ name: 'Authorization', value: 'Bearer b' }] },
      { name: 'bare', command: 'srv', args: [], env: [] },
    ]);
    expect(acpMcpServers(undefined)).toEqual([]);
  });
});
