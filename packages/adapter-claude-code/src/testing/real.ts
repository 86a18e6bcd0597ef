import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type ToolbridgeConfig } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { pathWith, realCliBinDir } from '@toolbridge/test-suite/kit';
import { createClaudeCodeAdapter } from '../adapter.js';
import type { ClaudeCodeAdapterOptions } from '../options.js';

/**
 * The environment of the real, pinned `claude` against a mock Messages API: a throwaway HOME,
 * config and state under it, no network, no real credentials (`auth` picks the dummy one).
 */
export function realClaudeEnv(mockUrl: string, home: string, auth: 'api_key' | 'oauth' | 'none' = 'api_key'): NodeJS.ProcessEnv {
  return {
    PATH: pathWith(realCliBinDir('claude-code')),
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    XDG_STATE_HOME: path.join(home, 'state'),
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    ANTHROPIC_BASE_URL: mockUrl,
    ...(auth === 'api_key' ? { ANTHROPIC_API_KEY: 'dummy' } : auth === 'oauth' ? { CLAUDE_CODE_OAUTH_TOKEN: 'dummy' } : {}),
  };
}

/** A registry with the real Claude Code in `home` (made if missing); close it when done. */
export async function realClaudeRegistry(
  mockUrl: string,
  home: string,
  o: { auth?: 'api_key' | 'oauth' | 'none'; config?: ToolbridgeConfig; options?: ClaudeCodeAdapterOptions } = {},
): Promise<{ registry: ToolRegistry; env: NodeJS.ProcessEnv; home: string }> {
  await mkdir(home, { recursive: true });
  const env = realClaudeEnv(mockUrl, home, o.auth);
  const registry = createRegistry({ adapters: [createClaudeCodeAdapter(o.options)], env });
  if (o.config) registry.config.replace(o.config);
  return { registry, env, home };
}
