import type { UsageLimits, UsageWindow } from './types.js';

/**
 * Usage limits without the windows whose reset time has passed: those numbers
 * describe a window that is over, not the current one. When none is left the
 * limits are `unavailable`, saying why. Applied to every tool's report so all
 * adapters behave alike.
 */
export function withoutPassedWindows(limits: UsageLimits, now = Date.now()): UsageLimits {
  if (limits.status !== 'available' || !limits.windows) return limits;
  const windows: Record<string, UsageWindow> = {};
  for (const [name, w] of Object.entries(limits.windows)) {
    if (w.resetsAt && Date.parse(w.resetsAt) <= now) continue;
    windows[name] = w;
  }
  if (Object.keys(windows).length === Object.keys(limits.windows).length) return limits;
  if (Object.keys(windows).length > 0) return { ...limits, windows };
  const { windows: _gone, ...rest } = limits;
  return {
    ...rest,
    status: 'unavailable',
    reason: `the usage windows last observed${limits.observedAt ? ` (at ${limits.observedAt})` : ''} have reset since; no newer report has been seen`,
  };
}
