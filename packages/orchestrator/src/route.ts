import { type RouteInfo, type RoutePolicy } from '@toolbridge/core';
import { withoutPassedWindows, type ToolRegistry, type ToolState } from '@toolbridge/core/runtime';

/** What a tool with no known usage windows counts as: neither preferred nor avoided. */
export const UNKNOWN_HEADROOM = 50;

/** The remaining percentage of the tool's tightest known usage window (50 when none is known). */
export function headroomOf(state: ToolState, now = Date.now()): number {
  // A window whose reset has passed is no longer known: it says nothing about the current one.
  const limits = state.usageLimits && withoutPassedWindows(state.usageLimits, now);
  const windows = limits?.status === 'available' ? Object.values(limits.windows ?? {}) : [];
  if (windows.length === 0) return UNKNOWN_HEADROOM;
  return Math.min(...windows.map((w) => w.remainingPercentage));
}

/**
 * The order to try the providers in. `headroom`: most headroom first, ties in the given order (a
 * stable sort); with `keepFirst` (a session's own tool) the first stays first. Used-up and
 * cooling-down tools keep their place: preflight still skips them.
 */
export function routeOrder(registry: ToolRegistry, providers: readonly string[], policy: RoutePolicy, keepFirst = false): RouteInfo {
  if (policy !== 'headroom') return { policy, order: [...providers] };
  const pinned = keepFirst ? providers.slice(0, 1) : [];
  const rest = providers.slice(pinned.length).map((id, i) => ({ id, i, headroom: headroomOf(registry.state(id)) }));
  rest.sort((a, b) => b.headroom - a.headroom || a.i - b.i);
  return { policy, order: [...pinned, ...rest.map((r) => r.id)] };
}
