import { afterEach, describe, expect, it } from '@jest/globals';
import { readFile, readdir, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { defaultStateDir, readSnapshot, snapshotFromRateLimit, STATE_FILE_NAME, usageLimitsFrom, writeSnapshot } from './usage-limits.js';

const info = {
  status: 'allowed',
  resetsAt: 1795322251,
  rateLimitType: 'five_hour',
  unifiedWindows: {
    five_hour: { utilization: 0.42, resetsAt: 1795322251, status: 'allowed' },
    seven_day: { utilization: 0.07, resetsAt: 1795405051, status: 'allowed' },
  },
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('usage limits', () => {
  it('converts unified windows: percentages, ISO reset, window length, plan', () => {
    const s = snapshotFromRateLimit(info, { observedAt: new Date('2026-11-22T03:37:31Z'), plan: 'max' })!;
    expect(s.windows).toEqual({
      five_hour: { usedPercentage: 42, remainingPercentage: 58, resetsAt: '2026-11-22T04:37:31.000Z', windowMinutes: 300 },
      seven_day: { usedPercentage: 7, remainingPercentage: 93, resetsAt: '2026-11-23T03:37:31.000Z', windowMinutes: 10080 },
    });
    const limits = usageLimitsFrom(s, Date.parse('2026-11-22T04:00:00Z'));
    expect(limits).toEqual({
      status: 'available',
      source: 'local_session',
      plan: 'max',
      windows: s.windows,
      observedAt: '2026-11-22T03:37:31.000Z',
    });
  });

  it('reports none seen, and drops windows whose reset has passed', () => {
    expect(usageLimitsFrom(undefined)).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/none has been observed/) });
    const s = snapshotFromRateLimit(info, { observedAt: new Date('2026-11-22T03:37:31Z') })!;
    const afterFive = usageLimitsFrom(s, Date.parse('2026-11-22T09:00:00Z'));
    expect(Object.keys(afterFive.windows!)).toEqual(['seven_day']);
    expect(usageLimitsFrom(s, Date.parse('2026-11-24T00:00:00Z'))).toMatchObject({
      status: 'unavailable',
      reason: expect.stringMatching(/reset/),
    });
  });

  it('ignores an event without utilizations', () => {
    expect(snapshotFromRateLimit({ status: 'allowed', resetsAt: 1 }, { observedAt: new Date() })).toBeUndefined();
  });

  it('persists atomically with user-only permissions; newer observations win', async () => {
    const { dir, cleanup } = await makeTempDir();
    cleanups.push(cleanup);
    const stateDir = path.join(dir, 'state', 'toolbridge');
    const newer = snapshotFromRateLimit(info, { observedAt: new Date('2026-11-22T04:00:00Z') })!;
    await writeSnapshot(stateDir, newer);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(stateDir, STATE_FILE_NAME))).mode & 0o777).toBe(0o600);
    expect(await readdir(stateDir)).toEqual([STATE_FILE_NAME]);
    const older = snapshotFromRateLimit(
      { unifiedWindows: { five_hour: { utilization: 0.9, resetsAt: 1795322251 } } },
      { observedAt: new Date('2026-11-22T03:00:00Z') },
    )!;
    await writeSnapshot(stateDir, older);
    expect((await readSnapshot(stateDir))!.windows.five_hour!.usedPercentage).toBe(42);
    expect(JSON.parse(await readFile(path.join(stateDir, STATE_FILE_NAME), 'utf8')).version).toBe(1);
  });

  it('treats a corrupt state file as no snapshot', async () => {
    const { dir, cleanup } = await makeTempDir();
    cleanups.push(cleanup);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, STATE_FILE_NAME), '{"version":1,"windows":');
    expect(await readSnapshot(dir)).toBeUndefined();
  });

  it('defaults to XDG_STATE_HOME, else ~/.local/state', () => {
    expect(defaultStateDir({ XDG_STATE_HOME: '/x/state', HOME: '/h' })).toBe('/x/state/toolbridge');
    expect(defaultStateDir({ HOME: '/h' })).toBe('/h/.local/state/toolbridge');
  });
});
