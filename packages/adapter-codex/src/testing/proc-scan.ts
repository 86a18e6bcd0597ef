import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of live processes whose environment contains `needle` (e.g.
 * `CODEX_HOME=/tmp/x`): finds the `codex` node shim and the Rust binary it
 * starts, whatever their command lines. Linux only (`/proc`).
 */
export function processesWithEnv(needle: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const status = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Zombies have exited; they only wait to be reaped.
      if (/\) Z /.test(status)) continue;
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8');
      if (environ.split('\0').includes(needle)) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return pids;
}

/** Those of `pids` that are still running (neither gone nor a zombie). */
export function livePids(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    try {
      return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  });
}
