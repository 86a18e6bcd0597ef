import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * Tools start some helpers in a session of their own (Codex's shell-environment
 * snapshot, commands an agent runs), so killing the run's process group does not
 * reach them. Every run carries a unique environment marker; after the run, any
 * process still carrying it is one of ours and is killed.
 * Linux only (`/proc`); elsewhere this finds nothing.
 */
export const RUN_MARKER_ENV = 'TOOLBRIDGE_RUN_ID';

export function newRunMarker(): string {
  return randomUUID();
}

/** Pids of live processes whose environment has `RUN_MARKER_ENV=<marker>`. */
export async function findMarked(marker: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const needle = `${RUN_MARKER_ENV}=${marker}`;
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
      .map(async (n) => {
        try {
          const environ = await readFile(`/proc/${n}/environ`, 'latin1');
          if (environ.split('\0').includes(needle)) found.push(Number(n));
        } catch {
          // exited meanwhile, or another user's process
        }
      }),
  );
  return found;
}

/** Dead or a zombie (an orphan's zombie waits for init; it no longer runs). */
export async function isDead(pid: number): Promise<boolean> {
  try {
    return /\) Z /.test(await readFile(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}

/**
 * Kill whatever of a finished run is still alive and wait (briefly) until it
 * has died, so the call returns with nothing of it left. Returns the pids killed.
 */
export async function killStragglers(marker: string, waitMs = 1000): Promise<number[]> {
  const pids = await findMarked(marker);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const until = Date.now() + waitMs;
  let alive = pids;
  while (alive.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
    const dead = await Promise.all(alive.map(isDead));
    alive = alive.filter((_, i) => !dead[i]);
  }
  return pids;
}

/**
 * Synchronous last resort for process exit (no event loop left): SIGKILL every
 * process carrying one of `markers`.
 */
export function killMarkedSync(markers: ReadonlySet<string>): void {
  if (process.platform !== 'linux' || markers.size === 0) return;
  const needles = new Set([...markers].map((m) => `${RUN_MARKER_ENV}=${m}`));
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return;
  }
  for (const n of names) {
    if (!/^\d+$/.test(n) || Number(n) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${n}/environ`, 'latin1').split('\0').some((v) => needles.has(v))) process.kill(Number(n), 'SIGKILL');
    } catch {
      // exited meanwhile, or not ours
    }
  }
}
