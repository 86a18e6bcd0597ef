import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { copilotCacheDir, quotaFromUser, readCopilotQuota, USER_CACHE_FILE } from './quota.js';

const RESET = 1_796_083_908;
/** A `premium_interactions` snapshot as Copilot 1.0.102 cached it from the mock GitHub. */
const premium = (extra: Record<string, unknown> = {}) => ({
  entitlement: 300,
  overage_count: 0,
  overage_permitted: false,
  percent_remaining: 41,
  quota_id: 'premium_interactions',
  remaining: 123,
  unlimited: false,
  timestamp_utc: '2026-11-26T00:11:48.920Z',
  has_quota: true,
  quota_reset_at: RESET,
  ...extra,
});
const entry = (login: string, retrievedAt: string, snapshot: unknown = premium()) => ({
  schemaVersion: 1,
  retrievedAt,
  response: {
    login,
    copilot_plan: 'individual_pro',
    quota_reset_date_utc: '2026-12-01T00:00:00.000Z',
    quota_snapshots: { premium_interactions: snapshot },
  },
});
/** The cache file as Copilot writes it: `//` comment lines, then JSON. */
const cacheFile = (entries: Record<string, unknown>) =>
  `// Disposable cache for Copilot user responses, safe to delete. Managed automatically.\n// User settings belong in settings.json.\n${JSON.stringify({ copilotUserCache: entries }, null, 2)}\n`;

describe('quotaFromUser', () => {
  it('the premium-request allowance as a window: percent used and left, the reset, the plan, when GitHub took it', () => {
    expect(quotaFromUser(entry('me', '2026-11-26T00:12:00.000Z'))).toEqual({
      status: 'available',
      source: 'copilot_user_cache',
      plan: 'individual_pro',
      windows: { premium_requests: { usedPercentage: 59, remainingPercentage: 41, resetsAt: new Date(RESET * 1000).toISOString() } },
      observedAt: '2026-11-26T00:11:48.920Z',
    });
  });

  it('without a reset time of its own the plan’s reset date counts; clamps a percentage out of range', () => {
    const limits = quotaFromUser(entry('me', '2026-11-26T00:12:00.000Z', premium({ quota_reset_at: undefined, percent_remaining: -3 })));
    expect(limits?.windows?.premium_requests).toEqual({
      usedPercentage: 100,
      remainingPercentage: 0,
      resetsAt: '2026-12-01T00:00:00.000Z',
    });
  });

  it('a plan that allows billed overage says so on the window', () => {
    const limits = quotaFromUser(
      entry('me', '2026-11-26T00:12:00.000Z', premium({ percent_remaining: 0, overage_permitted: true, overage_count: 7 })),
    );
    expect(limits?.windows?.premium_requests).toMatchObject({ usedPercentage: 100, remainingPercentage: 0, overagePermitted: true });
    expect(quotaFromUser(entry('me', '2026-11-26T00:12:00.000Z'))?.windows?.premium_requests?.overagePermitted).toBeUndefined();
  });

  it('no allowance to report: unlimited, -1, no snapshot, no percentage', () => {
    expect(quotaFromUser(entry('me', 'x', premium({ unlimited: true })))).toBeUndefined();
    expect(quotaFromUser(entry('me', 'x', premium({ entitlement: -1 })))).toBeUndefined();
    expect(quotaFromUser(entry('me', 'x', null))).toBeUndefined();
    expect(quotaFromUser(entry('me', 'x', premium({ percent_remaining: undefined })))).toBeUndefined();
    expect(quotaFromUser({})).toBeUndefined();
  });
});

describe('readCopilotQuota', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir: home, cleanup } = await makeTempDir('toolbridge-copilot-quota-unit-'));
  });
  afterAll(() => cleanup());

  it('reads the stored login’s entry from Copilot’s cache directory, not another account’s newer one', async () => {
    const env = { HOME: home };
    await mkdir(copilotCacheDir(env), { recursive: true });
    await mkdir(path.join(home, '.copilot'), { recursive: true });
    await writeFile(
      path.join(home, '.copilot', 'config.json'),
      `// managed\n${JSON.stringify({ lastLoggedInUser: { host: 'https://github.com', login: 'me' } })}`,
    );
    await writeFile(
      path.join(copilotCacheDir(env), USER_CACHE_FILE),
      cacheFile({
        'v1:a': entry('me', '2026-11-26T00:10:00.000Z', premium({ percent_remaining: 80 })),
        'v1:b': entry('someone-else', '2026-11-26T00:20:00.000Z', premium({ percent_remaining: 5 })),
      }),
    );
    expect((await readCopilotQuota(env)).windows?.premium_requests?.remainingPercentage).toBe(80);
  });

  it('COPILOT_CACHE_HOME and XDG_CACHE_HOME move the cache as they move Copilot’s', () => {
    expect(copilotCacheDir({ HOME: '/h' })).toBe('/h/.cache/copilot');
    expect(copilotCacheDir({ HOME: '/h', XDG_CACHE_HOME: '/x' })).toBe('/x/copilot');
    expect(copilotCacheDir({ HOME: '/h', XDG_CACHE_HOME: '/x', COPILOT_CACHE_HOME: '/c' })).toBe('/c');
  });

  it('unavailable with a reason: nothing fetched yet, your own model provider', async () => {
    const nothing = await readCopilotQuota({ HOME: path.join(home, 'nobody') });
    expect(nothing).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('has not fetched its quota') });
    const byok = await readCopilotQuota({ HOME: home, COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:1/v1' });
    expect(byok).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('your own model provider') });
  });
});
