import { afterEach } from '@jest/globals';
import type { FakeOllamaOptions } from '@toolbridge/adapter-ollama/testing';
import { makeFakeMachine, type FakeCli, type FakeMachine } from 'toolbridge/testing';
import type { ToolAdapter } from 'toolbridge';
import { createToolbridge, type ToolbridgeProvider, type ToolbridgeProviderSettings } from '../provider.js';

// Warnings are asserted on results; the AI SDK's console copy of them is noise in test output.
(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;

/**
 * Hooks for a test file: each `setup()` gives a fresh fake machine (fake `codex`, `claude` and
 * `opencode` replaying recorded real output, an in-test Ollama, a private HOME) and a provider on
 * a Toolbridge over it, both closed after the test. `adapters` replaces the default four.
 */
export function useProviderFixture() {
  const open: Array<{ provider: ToolbridgeProvider; machine: FakeMachine }> = [];
  afterEach(async () => {
    for (const { provider, machine } of open.splice(0)) {
      await provider.close();
      await machine.cleanup();
    }
  });
  return {
    async setup(
      options: { bins?: readonly FakeCli[]; ollama?: FakeOllamaOptions; adapters?: ToolAdapter[] } & Omit<
        ToolbridgeProviderSettings,
        'instance' | 'options'
      > = {},
    ) {
      const machine = await makeFakeMachine({ bins: options.bins, ollama: options.ollama });
      const provider = createToolbridge({
        options: options.adapters
          ? { env: machine.env, adapters: options.adapters }
          : { env: machine.env, config: { ollamaModel: 'llama3.2:1b' } },
        defaults: options.defaults,
      });
      open.push({ provider, machine });
      return { provider, machine, env: machine.env };
    },
  };
}
