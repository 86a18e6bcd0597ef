import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolbridgeConfig } from '@toolbridge/core';
import {
  makeTempDir,
  pathWith,
  realCliBinDir,
  realRegistry,
  startMockOpenAIServer,
  type RealRegistry,
  type MockBehaviour,
  type MockOpenAIServer,
} from '@toolbridge/test-suite/kit';
import { createPiAdapter } from '../adapter.js';
import type { PiAdapterOptions } from '../options.js';
import { mockModels } from './mock-models.js';

export { mockModels };

export interface RealPi extends RealRegistry {
  mock: MockOpenAIServer;
  /** The throwaway HOME; the user's Pi directory is `$HOME/.pi/agent`. */
  home: string;
  userDir: string;
  env: NodeJS.ProcessEnv;
}

// A loaded 2-core machine: Pi starts in ~1 s idle, several under load.
export const SLOW = 90_000;

/** The environment of the real, pinned `pi` with a throwaway HOME (and XDG state, where Toolbridge's runtime directory goes). */
export function realPiEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: pathWith(realCliBinDir('pi')),
    HOME: home,
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
}

/** The real, pinned `pi` behind a registry with a private sessions directory, the mock as its only provider. */
export async function startRealPi(
  behaviour: MockBehaviour,
  config: ToolbridgeConfig = { piModel: 'mock/mock-model', warmIdleMs: 0 },
  options: PiAdapterOptions = {},
): Promise<RealPi> {
  const mock = await startMockOpenAIServer(behaviour);
  const tmp = await makeTempDir('toolbridge-pi-real-');
  const home = tmp.dir;
  const userDir = path.join(home, '.pi', 'agent');
  await mkdir(userDir, { recursive: true });
  await writeFile(path.join(userDir, 'models.json'), mockModels(mock.baseURL));
  const env = realPiEnv(home);
  const run = realRegistry(createPiAdapter({ versionTimeoutMs: SLOW, ...options }), {
    env,
    marker: `HOME=${home}`,
    cleanup: [() => mock.close(), tmp.cleanup],
    config,
    options: { detectTimeoutMs: SLOW, healthTimeoutMs: SLOW, sessions: { dir: path.join(home, 'toolbridge-sessions') } },
  });
  return { mock, home, userDir, env, ...run };
}
