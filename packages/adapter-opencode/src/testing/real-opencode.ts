import path from 'node:path';
import type { ToolbridgeConfig } from '@toolbridge/core';
import { makeTempDir, pathWith, realCliBinDir, realRegistry, type ChatControl, type RealRegistry } from '@toolbridge/test-suite/kit';
import { createOpenCodeAdapter } from '../adapter.js';
import type { OpenCodeAdapterOptions } from '../options.js';
import {
  mockProviderConfig,
  startMockOpenAIServer,
  type MockBehaviour,
  type MockOpenAIServer,
  type MockStep,
} from './mock-openai-server.js';

export interface RealOpenCode extends RealRegistry {
  mock: MockOpenAIServer;
  /** The throwaway HOME (also the parent of the test's working directories). */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Script the mock's next model answers; returns the index of the next request (what they answer). */
  script(...steps: MockStep[]): number;
}

// A loaded 2-core CI machine: a warm opencode needs 2-4 s per command, much more under load.
const SLOW = 90_000;

/**
 * The environment of the real, pinned `opencode` with a throwaway HOME and XDG dirs: the mock as
 * provider `mock` in `OPENCODE_CONFIG_CONTENT`, no models.dev fetch, no self-update.
 */
export function realOpenCodeEnv(home: string, mockBaseURL: string, tmp = process.env.TMPDIR ?? '/tmp'): NodeJS.ProcessEnv {
  return {
    PATH: pathWith(realCliBinDir('opencode')),
    HOME: home,
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TMPDIR: tmp,
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_CONFIG_CONTENT: mockProviderConfig(mockBaseURL),
  };
}

/**
 * The real, pinned `opencode` behind a registry with a private sessions directory: a throwaway
 * HOME and XDG dirs, the mock as provider `mock` in `OPENCODE_CONFIG_CONTENT`, models fetch off.
 * `control` gives each chat an approval gate or an interrupt signal, as core does.
 */
export async function startRealOpenCode(
  behaviour: MockBehaviour,
  config: ToolbridgeConfig = { opencodeModel: 'mock/mock-model', warmIdleMs: 0 },
  options: OpenCodeAdapterOptions & { control?: () => ChatControl } = {},
): Promise<RealOpenCode> {
  const mock = await startMockOpenAIServer(behaviour);
  const tmp = await makeTempDir('toolbridge-opencode-real-');
  const home = tmp.dir;
  const env = realOpenCodeEnv(home, mock.baseURL);
  const adapter = createOpenCodeAdapter({ versionTimeoutMs: SLOW, modelsTimeoutMs: SLOW, authTimeoutMs: SLOW, ...options });
  const run = realRegistry(adapter, {
    env,
    marker: `HOME=${home}`,
    cleanup: [() => mock.close(), tmp.cleanup],
    config,
    control: options.control,
    options: { detectTimeoutMs: SLOW, healthTimeoutMs: SLOW, sessions: { dir: path.join(home, 'toolbridge-sessions') } },
  });
  return {
    mock,
    home,
    env,
    ...run,
    script(...steps) {
      const at = mock.requests.length;
      mock.behaviour = { kind: 'steps', steps };
      return at;
    },
  };
}

export { transcriptOf } from '@toolbridge/test-suite/kit';
