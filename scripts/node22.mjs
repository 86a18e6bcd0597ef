// The Node 22 that runs @toolbridge/ai-sdk's tests: `ai` 7 needs Node >= 22 while the rest of the
// project runs (and is tested) on Node 20. install-clis.mjs installs it
// into the CLI cache beside the real CLIs, and jest.mjs runs the package's tests with it. The pin is
// in packages/test-suite/real-clis.json beside the CLIs'.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** The npm registry's build of Node for this platform, pinned. Only linux-x64 is published at 22.x. */
export const NODE22 = JSON.parse(readFileSync(new URL('../packages/test-suite/real-clis.json', import.meta.url), 'utf8')).node22;

export function cliCache() {
  return process.env.TOOLBRIDGE_CLI_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'toolbridge', 'clis');
}

const major = (version) => Number(version.replace(/^v/, '').split('.')[0]);

/** Whether the pinned Node must be installed: this Node is older than 22 and nothing else was named. */
export function needsPinnedNode22() {
  return !process.env.TOOLBRIDGE_NODE22 && major(process.versions.node) < 22 && process.platform === 'linux' && process.arch === 'x64';
}

/** Where the pinned binary lives in the cache once installed. */
export function pinnedNode22Path() {
  return path.join(cliCache(), `${NODE22.pkg}@${NODE22.version}`, 'node_modules', NODE22.pkg, 'bin', NODE22.bin);
}

/**
 * The Node 22+ to run with: TOOLBRIDGE_NODE22 when set, this Node when it is 22 or newer, else the
 * pinned one from the cache (undefined when it is not installed).
 */
export function node22Binary() {
  if (process.env.TOOLBRIDGE_NODE22) return process.env.TOOLBRIDGE_NODE22;
  if (major(process.versions.node) >= 22) return process.execPath;
  const pinned = pinnedNode22Path();
  return existsSync(pinned) && existsSync(path.join(cliCache(), `${NODE22.pkg}@${NODE22.version}`, '.complete')) ? pinned : undefined;
}
