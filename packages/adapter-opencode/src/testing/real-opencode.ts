import path from 'node:path';
import { type ToolbridgeConfig } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import {
  makeTempDir,
  pathWith,
  processesWithEnv,
  realCliBinDir,
  recordingScratch,
  withChatControl,
  type ChatControl,
} from '@toolbridge/test-suite/kit';
import { createOpenCodeAdapter } from '../adapter.js';
import type { OpenCodeAdapterOptions } from '../options.js';
import {
  mockProviderConfig,
  startMockOpenAIServer,
  type MockBehaviour,
  type MockOpenAIServer,
  type MockStep,
} from './mock-openai-server.js';

export interface RealOpenCode {
  mock: MockOpenAIServer;
  registry: ToolRegistry;
  /** The throwaway HOME (also the parent of the test's working directories). */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Every scratch directory a chat asked core for (to check they are gone afterwards). */
  scratchDirs: string[];
  /** Live processes started with this HOME. */
  left(): number[];
  /** Script the mock's next model answers; returns the index of the next request (what they answer). */
  script(...steps: MockStep[]): number;
  close(): Promise<void>;
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
  const scratchDirs: string[] = [];
  const created = createOpenCodeAdapter({ versionTimeoutMs: SLOW, modelsTimeoutMs: SLOW, authTimeoutMs: SLOW, ...options });
  const adapter = options.control ? withChatControl(created, options.control) : created;
  const registry = createRegistry({
    adapters: [recordingScratch(adapter, scratchDirs)],
    env,
    detectTimeoutMs: SLOW,
    healthTimeoutMs: SLOW,
    sessions: { dir: path.join(home, 'toolbridge-sessions') },
  });
  registry.config.replace(config);
  return {
    mock,
    registry,
    home,
    env,
    scratchDirs,
    left: () => processesWithEnv(`HOME=${home}`),
    script(...steps) {
      const at = mock.requests.length;
      mock.behaviour = { kind: 'steps', steps };
      return at;
    },
    async close() {
      await registry.close();
      await mock.close();
      await tmp.cleanup();
    },
  };
}

export { transcriptOf } from '@toolbridge/test-suite/kit';
