import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { createToolbridge, type Toolbridge, type ToolbridgeOptions } from '../toolbridge.js';
import type { FakeCli } from './fake-clis.js';
import { startOllamaServer } from './ollama-server.js';
import { makeWorld, type World } from './world.js';

/**
 * Register hooks for a test file: one in-test Ollama server for the file, and a
 * fresh machine (fake CLIs, HOME) plus Toolbridge per `setup()`, closed after each test.
 */
export function useToolbridgeFixture() {
  let server: Awaited<ReturnType<typeof startOllamaServer>> | undefined;
  const open: Array<{ tb: Toolbridge; world: World }> = [];
  beforeAll(async () => {
    server = await startOllamaServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    for (const { tb, world } of open.splice(0)) {
      await tb.close();
      await world.cleanup();
    }
  });
  return {
    ollama: () => server!,
    /** All four default adapters over fakes on PATH (only `bins` installed, when given) and the in-test Ollama. */
    async setup(options: Omit<ToolbridgeOptions, 'env'> = {}, bins?: readonly FakeCli[]) {
      const world = await makeWorld(server!.url, bins);
      const tb = createToolbridge({ config: { ollamaModel: 'llama3.2:1b' }, ...options, env: world.env });
      open.push({ tb, world });
      return { tb, clis: world.clis, env: world.env };
    },
  };
}
