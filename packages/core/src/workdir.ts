import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A call's private scratch directory (0700 by mkdtemp), made on first use and removed by
 * `dispose()` however the call ends: schema files, images a CLI wants as a path, prompt files.
 */
export function scratchSpace(prefix: string): { get(): Promise<string>; dispose(): Promise<void> } {
  let made: Promise<string> | undefined;
  return {
    get: () => (made ??= mkdtemp(path.join(tmpdir(), `toolbridge-${prefix}-`))),
    async dispose() {
      if (!made) return;
      const dir = await made.catch(() => undefined);
      if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
