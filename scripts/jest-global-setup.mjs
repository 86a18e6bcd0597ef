// Jest runs this once before any test. `pnpm test` installs the real CLIs
// first; this repeats the (idempotent, fast when cached) check so a bare
// `pnpm jest` works from a fresh clone too.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function globalSetup() {
  const script = fileURLToPath(new URL('./install-clis.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('installing the pinned real CLIs failed (see output above)');
}
