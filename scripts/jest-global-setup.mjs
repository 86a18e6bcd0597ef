// Jest runs this once before any test. `pnpm test` installs the real CLIs
// first; this repeats the (idempotent, fast when cached) check so a bare
// `pnpm jest` works from a fresh clone too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function globalSetup() {
  isolateHome();
  const script = fileURLToPath(new URL('./install-clis.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('installing the pinned real CLIs failed (see output above)');
}

/**
 * Give the test processes a private HOME (workers are started after this and inherit it), so
 * nothing a test runs (sessions, tool state, CLI config) lands in the real home of whoever runs
 * the suite; `os.homedir()` reads the real environment, which a jest sandbox cannot change. The
 * pinned real CLIs stay where `pnpm clis` put them.
 */
function isolateHome() {
  process.env.TOOLBRIDGE_CLI_CACHE ??= path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'toolbridge', 'clis');
  process.env.HOME = mkdtempSync(path.join(tmpdir(), 'toolbridge-jest-home-'));
  for (const name of ['XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME']) delete process.env[name];
}
