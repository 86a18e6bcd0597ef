import { afterEach } from '@jest/globals';
import { makeFakeMachine, type FakeCli, type FakeMachine } from './fake-machine.js';
import { createToolbridge, type Toolbridge, type ToolbridgeOptions } from '../toolbridge.js';

/**
 * Register hooks for a test file: each `setup()` gets a fresh fake machine (fake
 * CLIs on PATH, HOME, an in-test Ollama) and a Toolbridge over it, both closed
 * after the test.
 */
export function useToolbridgeFixture() {
  const open: Array<{ tb: Toolbridge; machine: FakeMachine }> = [];
  let last: FakeMachine | undefined;
  afterEach(async () => {
    for (const { tb, machine } of open.splice(0)) {
      await tb.close();
      await machine.cleanup();
    }
  });
  return {
    /** The in-test Ollama of the latest `setup()`. */
    ollama: () => last!.ollama,
    /** All six default adapters over the fakes (only `bins` installed, when given). */
    async setup(options: Omit<ToolbridgeOptions, 'env'> = {}, bins?: readonly FakeCli[]) {
      const machine = await makeFakeMachine({ bins });
      last = machine;
      const tb = createToolbridge({ config: { ollamaModel: 'llama3.2:1b' }, ...options, env: machine.env });
      open.push({ tb, machine });
      return { tb, clis: machine, env: machine.env };
    },
  };
}
