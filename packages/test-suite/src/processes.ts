import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether a process with this pid still runs. A zombie counts as gone: it has
 * exited and only waits to be reaped (orphans are reaped by init, which some
 * containers do slowly).
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

/**
 * Pids of live processes (zombies excluded) whose environment holds `needle`
 * exactly, e.g. `HOME=/tmp/machine-x/home`: finds a tool's descendants whatever
 * their command lines, including ones killed before they could say who they
 * were. This process is never included. Linux only (`/proc`).
 */
export function processesWithEnv(needle: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (/\) Z /.test(readFileSync(`/proc/${name}/stat`, 'latin1'))) continue;
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(needle)) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** Wait until none of `pids` exists; resolves to the ones still alive after `timeoutMs`. */
export async function waitForPidsGone(pids: readonly number[], timeoutMs = 5000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(pidAlive);
    if (alive.length === 0 || Date.now() > until) return alive;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Wait until `predicate` holds, polling every 25 ms. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
