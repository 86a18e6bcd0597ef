import type { RunningProcess } from './run-types.js';

/**
 * End a long-lived tool the polite way: close its stdin (a tool speaking a protocol on stdio then
 * exits by itself, an idle `claude` in ~25 ms), kill its process group if it has not exited within
 * `graceMs`, and wait until it has. The one way every warm transport closes its process.
 */
export async function endGracefully(proc: RunningProcess, graceMs: number): Promise<void> {
  proc.endInput();
  const timer = setTimeout(() => proc.kill(), graceMs);
  timer.unref();
  await proc.result.catch(() => undefined);
  clearTimeout(timer);
}
