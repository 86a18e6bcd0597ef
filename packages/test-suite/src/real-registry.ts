import { type ToolAdapter, type ToolbridgeConfig } from '@toolbridge/core';
import { createRegistry, type RegistryOptions, type ToolRegistry } from '@toolbridge/core/runtime';
import { recordingScratch } from './adapter-harness.js';
import { withChatControl, type ChatControl } from './chat-control.js';
import { processesWithEnv } from './processes.js';

export interface RealRegistry {
  registry: ToolRegistry;
  /** Every scratch directory a chat asked core for (to check they are gone afterwards). */
  scratchDirs: string[];
  /** Live processes whose environment holds `marker` (the throwaway HOME or the tool's own home). */
  left(): number[];
  /** Closes the registry, then what the setup started (the mock server, the throwaway home), in order. */
  close(): Promise<void>;
}

/**
 * A real CLI's adapter behind a registry, the way its real-CLI tests run it: each chat's scratch
 * directory recorded, `control` giving each chat an approval gate or an interrupt signal (as core
 * does for `approvals: "ask"` and `interrupt(sessionId)`), `config` set.
 */
export function realRegistry(
  adapter: ToolAdapter,
  o: {
    env: NodeJS.ProcessEnv;
    marker: string;
    cleanup: ReadonlyArray<() => Promise<void>>;
    config?: ToolbridgeConfig;
    control?: () => ChatControl;
    options?: Omit<RegistryOptions, 'adapters' | 'env'>;
  },
): RealRegistry {
  const scratchDirs: string[] = [];
  const controlled = o.control ? withChatControl(adapter, o.control) : adapter;
  const registry = createRegistry({ ...o.options, adapters: [recordingScratch(controlled, scratchDirs)], env: o.env });
  if (o.config) registry.config.replace(o.config);
  return {
    registry,
    scratchDirs,
    left: () => processesWithEnv(o.marker),
    async close() {
      await registry.close();
      for (const step of o.cleanup) await step();
    },
  };
}
