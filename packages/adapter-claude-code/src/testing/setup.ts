import { afterEach } from '@jest/globals';
import path from 'node:path';
import { type ToolbridgeConfig } from '@toolbridge/core';
import { createRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, pathWith } from '@toolbridge/test-suite/kit';
import { createClaudeCodeAdapter } from '../adapter.js';
import type { ClaudeCodeAdapterOptions } from '../options.js';
import { writeFakeClaude, type FakeClaudeSpec } from './fake-claude.js';

/** A registry with the adapter (spawning, unless `options.warm`) and a fake `claude` first on PATH, in a throwaway HOME. */
export async function fakeSetup(spec: FakeClaudeSpec, options: ClaudeCodeAdapterOptions = {}, config?: ToolbridgeConfig) {
  const { dir, cleanup } = await makeTempDir('tb-claude-');
  const binDir = path.join(dir, 'bin');
  const recordFile = path.join(dir, 'runs.jsonl');
  const pidFile = path.join(dir, 'pids');
  await writeFakeClaude(binDir, { ...spec, recordFile, pidFile });
  const env: NodeJS.ProcessEnv = {
    PATH: pathWith(binDir),
    HOME: path.join(dir, 'home'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    CLAUDE_CONFIG_DIR: path.join(dir, 'home', '.claude'),
  };
  // Spawn-per-chat unless a test asks for the warm transport (`warm: true`).
  const adapter = createClaudeCodeAdapter({ warm: false, ...options });
  const registry = createRegistry({ adapters: [adapter], env });
  if (config) registry.config.replace(config);
  return {
    dir,
    env,
    adapter,
    registry,
    recordFile,
    pidFile,
    stateDir: path.join(dir, 'state', 'toolbridge'),
    async cleanup() {
      await registry.close();
      await cleanup();
    },
  };
}

/**
 * `fakeSetup` for one test file: whatever a test set up (and whatever it hands to `defer`) is
 * cleaned up after that test, newest first.
 */
export function fakeSetups(): { setup: typeof fakeSetup; defer(cleanup: () => Promise<void>): void } {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    async setup(...args) {
      const s = await fakeSetup(...args);
      cleanups.push(s.cleanup);
      return s;
    },
    defer: (cleanup) => void cleanups.push(cleanup),
  };
}
