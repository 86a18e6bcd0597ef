import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

import pins from '../real-clis.json' with { type: 'json' };

/**
 * The real CLIs the integration tests drive, pinned in `real-clis.json` (the one place a version
 * is written). `scripts/install-clis.mjs` (run by `pnpm test` before jest) installs them into the cache.
 */
export const REAL_CLIS: Readonly<Record<RealCliName, { pkg: string; version: string; bin: string }>> = pins.clis;

export type RealCliName = keyof typeof pins.clis;

export function cliCacheDir(): string {
  return process.env.TOOLBRIDGE_CLI_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'toolbridge', 'clis');
}

/** The directory holding the pinned real binary (to put first on PATH). Throws if not installed. */
export function realCliBinDir(name: RealCliName): string {
  const { pkg, version, bin } = REAL_CLIS[name];
  const dir = path.join(cliCacheDir(), `${pkg.replace('/', '__')}@${version}`, 'node_modules', '.bin');
  if (!existsSync(path.join(dir, bin))) {
    throw new Error(`${pkg}@${version} is not installed in ${cliCacheDir()}; run "pnpm clis" (pnpm test does it)`);
  }
  return dir;
}
