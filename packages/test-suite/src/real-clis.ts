import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The real CLIs the integration tests drive, pinned. `scripts/install-clis.mjs`
 * (run by `pnpm test` before jest) installs them into the cache directory.
 */
export const REAL_CLIS = {
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  'claude-code': { pkg: '@anthropic-ai/claude-code', version: '2.1.330', bin: 'claude' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
} as const;

export type RealCliName = keyof typeof REAL_CLIS;

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
