import path from 'node:path';
import type { UsageLimits, UsageWindow } from '@toolbridge/core';
import { newestSessionFiles, tailLines } from './session-files.js';

export interface ReadUsageLimitsOptions {
  /** How many of the newest session files to look into (default 5). */
  maxFiles?: number;
  /** How many bytes from the end of each file to read (default 256 KiB). */
  tailBytes?: number;
  signal?: AbortSignal;
}

/** `five_hour`, `seven_day`, otherwise a name that says the window's length. */
export function windowName(minutes: number | undefined, fallback: string): string {
  if (minutes === undefined || !Number.isFinite(minutes) || minutes <= 0) return fallback;
  if (minutes === 300) return 'five_hour';
  if (minutes === 10080) return 'seven_day';
  if (minutes % 1440 === 0) return `${minutes / 1440}_day`;
  if (minutes % 60 === 0) return `${minutes / 60}_hour`;
  return `${minutes}_minute`;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function toWindow(raw: unknown, lineTime: number): UsageWindow | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const w = raw as Record<string, unknown>;
  if (typeof w.used_percent !== 'number') return undefined;
  const used = round2(w.used_percent);
  const window: UsageWindow = { usedPercentage: used, remainingPercentage: round2(Math.max(0, 100 - used)) };
  let resetMs: number | undefined;
  if (typeof w.resets_at === 'number') resetMs = w.resets_at * 1000;
  // Older Codex versions wrote a relative reset, counted from the line's timestamp.
  else if (typeof w.resets_in_seconds === 'number' && Number.isFinite(lineTime)) resetMs = lineTime + w.resets_in_seconds * 1000;
  if (resetMs !== undefined && Number.isFinite(resetMs)) window.resetsAt = new Date(resetMs).toISOString();
  if (typeof w.window_minutes === 'number') window.windowMinutes = w.window_minutes;
  return window;
}

/**
 * The `primary` and `secondary` windows of a `rate_limits` record (`used_percent`, `window_minutes`,
 * `resets_at`), named by their length; undefined when it has none. `lineTime` dates a relative reset.
 */
export function namedWindows(limits: Record<string, unknown>, lineTime = NaN): Record<string, UsageWindow> | undefined {
  const windows: Record<string, UsageWindow> = {};
  for (const key of ['primary', 'secondary'] as const) {
    const w = toWindow(limits[key], lineTime);
    if (!w) continue;
    let name = windowName(w.windowMinutes, key);
    if (name in windows) name = `${name}_${key}`;
    windows[name] = w;
  }
  return Object.keys(windows).length > 0 ? windows : undefined;
}

/** Usage limits from one session-log line, if it is a `token_count` event carrying `rate_limits`. */
export function usageLimitsFromLine(line: string): UsageLimits | undefined {
  // Cheap test before parsing: most lines are prompts, tool output and items.
  if (!line.includes('"token_count"') || !line.includes('"rate_limits"')) return undefined;
  let entry: { timestamp?: unknown; payload?: { type?: unknown; rate_limits?: unknown } };
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  const payload = entry?.payload;
  if (!payload || payload.type !== 'token_count') return undefined;
  const limits = payload.rate_limits as Record<string, unknown> | null | undefined;
  if (!limits || typeof limits !== 'object') return undefined;
  const lineTime = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : NaN;
  const windows = namedWindows(limits, lineTime);
  if (!windows) return undefined;
  return {
    status: 'available',
    source: 'local_session',
    ...(typeof limits.plan_type === 'string' && limits.plan_type ? { plan: limits.plan_type } : {}),
    windows,
    ...(Number.isFinite(lineTime) ? { observedAt: new Date(lineTime).toISOString() } : {}),
  };
}

/**
 * The newest usage windows Codex recorded in `$CODEX_HOME/sessions`. Reads
 * only the tails of the newest few session files, newest lines first.
 */
export async function readUsageLimits(codexHome: string, options: ReadUsageLimitsOptions = {}): Promise<UsageLimits> {
  const maxFiles = options.maxFiles ?? 5;
  const tailBytes = options.tailBytes ?? 256 * 1024;
  const sessionsDir = path.join(codexHome, 'sessions');
  let looked = 0;
  for await (const file of newestSessionFiles(sessionsDir, options.signal)) {
    if (looked++ >= maxFiles) break;
    let lines: string[];
    try {
      lines = await tailLines(file, tailBytes);
    } catch {
      continue;
    }
    for (let i = lines.length - 1; i >= 0; i--) {
      const limits = usageLimitsFromLine(lines[i]!);
      if (limits) return limits;
    }
  }
  return {
    status: 'unavailable',
    source: 'local_session',
    reason:
      looked === 0 ? `no Codex session logs in ${sessionsDir}` : `no usage-limit data in the newest Codex session logs (${sessionsDir})`,
  };
}
