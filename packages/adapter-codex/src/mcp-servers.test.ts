import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { parse } from 'smol-toml';
import { codexMcpSetup, shellExcludeConfig } from './mcp-servers.js';

const servers = [
  { name: 'local', command: 'node', args: ['server.js', 'two words'], env: { TOKEN: 's3cret "quoted"', OTHER: 'other-value' } },
  { name: 'remote', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer b' } },
  { name: 'bare', command: 'srv' },
];

/** What Codex reads from one `-c key=value`: the value parsed as TOML. */
const tomlValue = (v: string): unknown => (parse(`v = ${v}`) as { v: unknown }).v;

describe("a chat's MCP servers as Codex config overrides", () => {
  const { config, env } = codexMcpSetup(servers, 'workspace-write', false);

  it('names secrets only: values go into the environment under generated names', () => {
    expect(env).toEqual({ TOOLBRIDGE_MCP_0_0: 's3cret "quoted"', TOOLBRIDGE_MCP_0_1: 'other-value', TOOLBRIDGE_MCP_1_0: 'Bearer b' });
    const text = Object.entries(config).join('\n');
    for (const secret of Object.values(env)) expect(text).not.toContain(secret);
    expect(tomlValue(config['mcp_servers.remote']!)).toEqual({
      url: 'https://mcp.example/mcp',
      env_http_headers: { Authorization: 'TOOLBRIDGE_MCP_1_0' },
      default_tools_approval_mode: 'approve',
    });
    expect(tomlValue(config['mcp_servers.bare']!)).toEqual({ command: 'srv', args: [], default_tools_approval_mode: 'approve' });
  });

  it('a stdio server with env starts through /bin/sh, which gives it each value under its own name', () => {
    const local = tomlValue(config['mcp_servers.local']!) as { command: string; args: string[]; env_vars: string[] };
    expect(local.command).toBe('/bin/sh');
    expect(local.env_vars).toEqual(['TOOLBRIDGE_MCP_0_0', 'TOOLBRIDGE_MCP_0_1']);
    // Run the script as Codex would (only the listed variables passed), with `env` standing in for the server.
    const [flag, script] = local.args;
    const out = execFileSync('/bin/sh', [flag!, script!, 'env', '-0'], {
      env: { PATH: process.env.PATH, ...Object.fromEntries(local.env_vars.map((k) => [k, env[k]])) },
    }).toString();
    const seen = Object.fromEntries(
      out
        .split('\0')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(seen).toMatchObject({ TOKEN: 's3cret "quoted"', OTHER: 'other-value' });
    expect(Object.keys(seen).filter((k) => k.startsWith('TOOLBRIDGE_MCP_'))).toEqual([]);
    expect(local.args.slice(2)).toEqual(['node', 'server.js', 'two words']);
  });

  it('asks before each call when the caller answers approvals, and at read-only (which refuses every call)', () => {
    const mode = (level: 'read-only' | 'full', ask: boolean) =>
      (tomlValue(codexMcpSetup([servers[2]!], level, ask).config['mcp_servers.bare']!) as Record<string, string>)
        .default_tools_approval_mode;
    expect([mode('full', false), mode('full', true), mode('read-only', false)]).toEqual(['approve', 'prompt', 'prompt']);
  });

  it("keeps the user's shell exclusions beside the generated names", () => {
    expect(tomlValue(shellExcludeConfig(['AWS_*'])['shell_environment_policy.exclude']!)).toEqual(['AWS_*', 'TOOLBRIDGE_MCP_*']);
  });
});
