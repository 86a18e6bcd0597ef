import { readFileSync } from 'node:fs';
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

/**
 * The command lines (argv joined by spaces) of the processes `pids()` names, sampled every 20 ms
 * while `work` runs and once after: to prove a secret never reached any process's argv. Linux only.
 */
export async function commandLinesWhile<T>(pids: () => readonly number[], work: Promise<T>): Promise<{ value: T; argvs: string[] }> {
  const argvs = new Set<string>();
  const sample = () => {
    for (const pid of pids())
      try {
        argvs.add(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
      } catch {
        // Gone meanwhile.
      }
  };
  const timer = setInterval(sample, 20);
  try {
    const value = await work;
    sample();
    return { value, argvs: [...argvs] };
  } finally {
    clearInterval(timer);
  }
}
