import type { UsageLimits } from '@toolbridge/core';
import { scriptedAdapter, type ScriptedAdapter } from '@toolbridge/test-suite/kit';

export { fakeToolScript, processAdapter } from '@toolbridge/test-suite/kit';

export interface MemoryAdapterOptions {
  type?: 'agent' | 'runtime';
  /** Answer text, streamed as one delta per word. */
  reply?: string;
  /** Thrown by the chat (before any delta unless `failAfterDeltas`). */
  fail?: () => Error;
  failAfterDeltas?: number;
  /** Tools without a login have no checkAuth/startAuth (default: logged in). */
  login?: 'none' | 'logged-in' | 'logged-out';
  available?: boolean;
  /** detect() never settles (a hung tool). */
  hangDetect?: boolean;
  usageLimits?: UsageLimits;
  version?: string;
  delayMs?: number;
}

/** The bridge tests' preset of the test kit's scripted tool: logged in, named "Memory <id>". */
export function memoryAdapter(id: string, o: MemoryAdapterOptions = {}): ScriptedAdapter {
  const deltas = (o.reply ?? `hello from ${id}`).split(/(?<= )/);
  return scriptedAdapter(id, {
    name: `Memory ${id}`,
    type: o.type,
    login: o.login ?? 'logged-in',
    available: o.available,
    hangDetect: o.hangDetect,
    usageLimits: o.usageLimits,
    version: o.version,
    script: [{ deltas, delayMs: o.delayMs, ...(o.fail ? { error: o.fail, failAfterDeltas: o.failAfterDeltas ?? 0 } : {}) }],
  });
}
