import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type UsageLimits, type UsageWindow } from '@toolbridge/core';
import { writeFileAtomic } from '@toolbridge/core/runtime';

export { defaultStateDir } from '@toolbridge/core/runtime';

/** `rate_limit_info` of a stream-json `rate_limit_event`. */
export interface RateLimitInfo {
  status?: string;
  resetsAt?: number;
  rateLimitType?: string;
  unifiedWindows?: Record<string, { utilization?: number; resetsAt?: number; status?: string }>;
}

/** What the state file holds: the last windows Claude Code reported. */
export interface UsageSnapshot {
  version: 1;
  observedAt: string;
  plan?: string;
  windows: Record<string, UsageWindow>;
  /** Windows the server reported as `rejected` (used up). */
  rejected: string[];
}

export const STATE_FILE_NAME = 'claude-code-usage.json';

const WINDOW_MINUTES: Record<string, number> = { five_hour: 300, seven_day: 10080 };

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function isoFromEpochSeconds(s: unknown): string | undefined {
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? new Date(s * 1000).toISOString() : undefined;
}

/** Convert a rate_limit_event to a snapshot; undefined when it names no window with a utilization. */
export function snapshotFromRateLimit(info: RateLimitInfo, meta: { observedAt: Date; plan?: string }): UsageSnapshot | undefined {
  const windows: Record<string, UsageWindow> = {};
  const rejected: string[] = [];
  for (const [name, w] of Object.entries(info.unifiedWindows ?? {})) {
    if (!w || typeof w.utilization !== 'number' || !Number.isFinite(w.utilization)) continue;
    const used = round2(Math.min(100, Math.max(0, w.utilization * 100)));
    const window: UsageWindow = { usedPercentage: used, remainingPercentage: round2(100 - used) };
    const resetsAt = isoFromEpochSeconds(w.resetsAt);
    if (resetsAt) window.resetsAt = resetsAt;
    const minutes = WINDOW_MINUTES[name] ?? (name.startsWith('seven_day') ? 10080 : undefined);
    if (minutes) window.windowMinutes = minutes;
    windows[name] = window;
    if (w.status === 'rejected') rejected.push(name);
  }
  if (Object.keys(windows).length === 0) return undefined;
  return { version: 1, observedAt: meta.observedAt.toISOString(), ...(meta.plan ? { plan: meta.plan } : {}), windows, rejected };
}

/** A used-up window from a rate limit report: the one that blocks, and when it reopens. */
export function exhaustedWindow(info: RateLimitInfo): { name: string; resetsAt?: Date } | undefined {
  for (const [name, w] of Object.entries(info.unifiedWindows ?? {})) {
    if (w?.status === 'rejected' && typeof w.utilization === 'number' && w.utilization >= 1) {
      const iso = isoFromEpochSeconds(w.resetsAt ?? info.resetsAt);
      return { name, ...(iso ? { resetsAt: new Date(iso) } : {}) };
    }
  }
  return undefined;
}

/**
 * The spec's usageLimits from a snapshot. Windows whose reset time has passed
 * say nothing about the current window, so they are left out.
 */
export function usageLimitsFrom(snapshot: UsageSnapshot | undefined, now = Date.now(), plan?: string): UsageLimits {
  if (!snapshot) {
    return {
      status: 'unavailable',
      reason: 'Claude Code reports usage windows only while it runs with a Claude subscription login; none has been observed yet',
    };
  }
  const windows: Record<string, UsageWindow> = {};
  for (const [name, w] of Object.entries(snapshot.windows)) {
    if (w.resetsAt && Date.parse(w.resetsAt) <= now) continue;
    windows[name] = w;
  }
  if (Object.keys(windows).length === 0) {
    return {
      status: 'unavailable',
      observedAt: snapshot.observedAt,
      reason: 'the usage windows Claude Code last reported have reset since; no newer report has been observed',
    };
  }
  const p = snapshot.plan ?? plan;
  return { status: 'available', source: 'local_session', ...(p ? { plan: p } : {}), windows, observedAt: snapshot.observedAt };
}

function isSnapshot(v: unknown): v is UsageSnapshot {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<UsageSnapshot>;
  if (s.version !== 1 || typeof s.observedAt !== 'string' || typeof s.windows !== 'object' || s.windows === null) return false;
  return Object.values(s.windows).every(
    (w) => typeof w === 'object' && w !== null && typeof w.usedPercentage === 'number' && typeof w.remainingPercentage === 'number',
  );
}

/** Read the persisted snapshot; a missing or unreadable file counts as none. */
export async function readSnapshot(dir: string): Promise<UsageSnapshot | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path.join(dir, STATE_FILE_NAME), 'utf8'));
    if (!isSnapshot(parsed)) return undefined;
    return { ...parsed, rejected: Array.isArray(parsed.rejected) ? parsed.rejected : [] };
  } catch {
    return undefined;
  }
}

/**
 * Persist a snapshot readable only by the user. Write-then-rename so a reader
 * never sees half a file; an older observation never replaces a newer one.
 */
export async function writeSnapshot(dir: string, snapshot: UsageSnapshot): Promise<void> {
  const current = await readSnapshot(dir);
  if (current && Date.parse(current.observedAt) > Date.parse(snapshot.observedAt)) return;
  await writeFileAtomic(path.join(dir, STATE_FILE_NAME), JSON.stringify(snapshot, null, 2) + '\n');
}
