import { pidsWithEnv, processRunning } from '@toolbridge/adapter-kit';

/**
 * Whether a process with this pid still runs. A zombie counts as gone: it has
 * exited and only waits to be reaped (orphans are reaped by init, which some
 * containers do slowly).
 */
export const pidAlive = processRunning;

/**
 * Pids of live processes (zombies excluded) whose environment holds `needle`
 * exactly, e.g. `HOME=/tmp/machine-x/home`: finds a tool's descendants whatever
 * their command lines, including ones killed before they could say who they
 * were. This process is never included. Linux only (`/proc`).
 */
export function processesWithEnv(needle: string): number[] {
  return pidsWithEnv([needle]);
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
