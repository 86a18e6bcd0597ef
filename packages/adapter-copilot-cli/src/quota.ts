import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { UsageLimits, UsageWindow } from '@toolbridge/core';
import { copilotHome, parseConfigJson } from './auth.js';

/**
 * Copilot's cache directory: `$COPILOT_CACHE_HOME`, else `$XDG_CACHE_HOME/copilot`, else
 * `~/.cache/copilot` (Copilot 1.0.102's own order on Linux and macOS).
 */
export function copilotCacheDir(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_CACHE_HOME || path.join(env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache'), 'copilot');
}

/** Where Copilot keeps GitHub's `copilot_internal/user` answers, quota included. */
export const USER_CACHE_FILE = 'copilot-user-cache.json';

const round2 = (n: number) => Math.round(n * 100) / 100;

/** One entry of the cache: the answer and when Copilot fetched it. */
interface CachedUser {
  retrievedAt?: unknown;
  response?: {
    login?: unknown;
    copilot_plan?: unknown;
    quota_reset_date_utc?: unknown;
    quota_snapshots?: Record<string, Record<string, unknown> | null | undefined>;
  };
}

/**
 * The premium-request allowance of one `copilot_internal/user` answer as a usage window
 * (`premium_requests`): `percent_remaining` left, reset at `quota_reset_at` (epoch seconds) or the
 * plan's `quota_reset_date_utc`, `overagePermitted` when `overage_permitted` is. None when the plan
 * has no such allowance (unlimited, `-1`, absent).
 */
export function quotaFromUser(cached: unknown): UsageLimits | undefined {
  const entry = (cached ?? {}) as CachedUser;
  const r = entry.response;
  const premium = r?.quota_snapshots?.premium_interactions;
  if (typeof premium !== 'object' || premium === null || premium.unlimited === true || premium.entitlement === -1) return undefined;
  const left = premium.percent_remaining;
  if (typeof left !== 'number' || !Number.isFinite(left)) return undefined;
  const remaining = round2(Math.min(100, Math.max(0, left)));
  const window: UsageWindow = { usedPercentage: round2(100 - remaining), remainingPercentage: remaining };
  // Paid plans may allow premium requests past the allowance, billed per request: 100 % then does not stop Copilot.
  if (premium.overage_permitted === true) window.overagePermitted = true;
  const resetMs =
    typeof premium.quota_reset_at === 'number'
      ? premium.quota_reset_at * 1000
      : typeof r?.quota_reset_date_utc === 'string'
        ? Date.parse(r.quota_reset_date_utc)
        : NaN;
  if (Number.isFinite(resetMs)) window.resetsAt = new Date(resetMs).toISOString();
  // When GitHub took the snapshot, else when Copilot fetched it.
  const observed = [premium.timestamp_utc, entry.retrievedAt]
    .map((t) => (typeof t === 'string' ? Date.parse(t) : NaN))
    .find(Number.isFinite);
  return {
    status: 'available',
    source: 'copilot_user_cache',
    ...(typeof r?.copilot_plan === 'string' && r.copilot_plan ? { plan: r.copilot_plan } : {}),
    windows: { premium_requests: window },
    ...(observed !== undefined ? { observedAt: new Date(observed).toISOString() } : {}),
  };
}

/** Entries of the cache newest first; those of `login` only when it is known. */
function entriesFor(cache: Record<string, unknown> | undefined, login: string | undefined): CachedUser[] {
  const all = Object.values((cache?.copilotUserCache ?? {}) as Record<string, CachedUser>).filter(
    (e): e is CachedUser => typeof e === 'object' && e !== null,
  );
  const time = (e: CachedUser) => (typeof e.retrievedAt === 'string' ? Date.parse(e.retrievedAt) || 0 : 0);
  return all.filter((e) => !login || e.response?.login === login).sort((a, b) => time(b) - time(a));
}

/**
 * The premium-request allowance Copilot last fetched from GitHub, read offline: Copilot asks
 * `copilot_internal/user` when it starts with a GitHub login (again once its copy is older than
 * somewhere between 10 and 60 minutes, measured) and keeps the answer in its cache directory. The
 * entry of the stored login (`config.json`'s `lastLoggedInUser`) when there is one, else the newest.
 */
export async function readCopilotQuota(env: NodeJS.ProcessEnv): Promise<UsageLimits> {
  const unavailable = (reason: string): UsageLimits => ({ status: 'unavailable', source: 'copilot_user_cache', reason });
  if (env.COPILOT_PROVIDER_BASE_URL)
    return unavailable('Copilot CLI runs on your own model provider: no GitHub premium-request quota applies');
  const [cacheText, configText] = await Promise.all([
    readFile(path.join(copilotCacheDir(env), USER_CACHE_FILE), 'utf8').catch(() => undefined),
    readFile(path.join(copilotHome(env), 'config.json'), 'utf8').catch(() => ''),
  ]);
  if (cacheText === undefined)
    return unavailable('Copilot CLI has not fetched its quota from GitHub yet (it does when a chat starts with a GitHub login)');
  const last = parseConfigJson(configText)?.lastLoggedInUser as { login?: unknown } | undefined;
  const login = typeof last?.login === 'string' ? last.login : undefined;
  const entries = entriesFor(parseConfigJson(cacheText), login);
  for (const entry of entries) {
    const limits = quotaFromUser(entry);
    if (limits) return limits;
  }
  return unavailable(
    entries.length > 0 ? 'the Copilot plan has no premium-request allowance (unlimited or none)' : 'Copilot CLI has no quota of this login',
  );
}
