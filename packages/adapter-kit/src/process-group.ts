import { spawn as nodeSpawn } from 'node:child_process';
import { killMarkedSync } from './stragglers.js';

/**
 * Tools run in process groups of their own (so a kill reaches their helpers). This module keeps
 * the process-wide record of the groups and run markers still alive, and the hooks that end them
 * when this process exits, or dies by a signal nobody else handles.
 */
const liveGroups = new Set<number>();
/** Run markers of runs not yet swept (see stragglers.ts). */
const liveMarkers = new Set<string>();
let exitHookInstalled = false;

/** Signal a whole process group (or the process alone when it has no group); false when it is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  if (process.platform === 'win32') {
    try {
      nodeSpawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
      return true;
    } catch {
      return false;
    }
  }
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** Whether anything of the process group led by `pid` is still there. */
export function groupAlive(pid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** End what is left of a group (SIGTERM, then SIGKILL after `graceMs` for whatever did not go). */
export function endGroup(pid: number, graceMs: number): void {
  if (!groupAlive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  setTimeout(() => groupAlive(pid) && signalGroup(pid, 'SIGKILL'), graceMs).unref();
}

/** Track a started tool's group (and its run marker) until `forgetGroup`/`forgetMarker`. */
export function trackGroup(pid: number | undefined, marker: string | undefined): void {
  installExitHook();
  if (pid !== undefined) liveGroups.add(pid);
  if (marker) liveMarkers.add(marker);
}

export function forgetGroup(pid: number): void {
  liveGroups.delete(pid);
}

export function forgetMarker(marker: string): void {
  liveMarkers.delete(marker);
}

/** Number of child process groups this process currently runs (for diagnostics and tests). */
export function liveProcessGroupCount(): number {
  return liveGroups.size;
}

function killEverythingSync(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  killMarkedSync(liveMarkers);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last line of defence: never leave a tool's process tree behind when this process exits.
  process.once('exit', killEverythingSync);
  // Dying by a signal skips 'exit', and tools run in process groups of their own, so a
  // terminal's Ctrl+C does not reach them. When nobody else handles the signal, end the
  // tools, then die by it as if this listener were not there.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(sig) > 1) return; // the app owns shutdown; 'exit' still cleans up
      killEverythingSync();
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}
