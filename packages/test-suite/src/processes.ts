/** Whether a process with this pid exists (zombies of ours excluded by the caller's wait). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
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
