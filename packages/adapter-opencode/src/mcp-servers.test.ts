import { describe, expect, it } from '@jest/globals';
import { envWithMcpServers, mcpToolRules } from './mcp-servers.js';
import { opencodePermissions } from './permissions.js';

const servers = [
  { name: 'local', command: 'node', args: ['server.js'], env: { TOKEN: 't' } },
  { name: 'remote', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer b' } },
];

describe("a chat's MCP servers in OpenCode's config", () => {
  it("go into OPENCODE_CONFIG_CONTENT beside the user's own content and servers", () => {
    const user = JSON.stringify({ provider: { p: {} }, mcp: { mine: { type: 'remote', url: 'https://u.example' } } });
    const env = envWithMcpServers({ HOME: '/h', OPENCODE_CONFIG_CONTENT: user }, servers);
    expect(env.HOME).toBe('/h');
    expect(JSON.parse(env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      provider: { p: {} },
      mcp: {
        mine: { type: 'remote', url: 'https://u.example' },
        local: { type: 'local', command: ['node', 'server.js'], environment: { TOKEN: 't' }, enabled: true },
        remote: { type: 'remote', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer b' }, enabled: true },
      },
    });
    const plain = { HOME: '/h' };
    expect(envWithMcpServers(plain, [])).toBe(plain);
    expect(() => envWithMcpServers({ OPENCODE_CONFIG_CONTENT: '[1]' }, servers)).toThrow(/the MCP servers cannot be added/);
  });

  it('their tools are denied at read-only, and follow the level above it', () => {
    expect(mcpToolRules(servers, 'read-only')).toEqual({ 'local_*': 'deny', 'remote_*': 'deny' });
    expect(mcpToolRules(servers, 'workspace-write')).toEqual({});
    const ro = opencodePermissions({ permissions: 'read-only', additionalDirs: [], mcpServers: servers }, { config: {} });
    expect(ro.config['local_*']).toBe('deny');
  });
});
