import { afterEach, describe, expect, it } from '@jest/globals';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { readUsageLimits, usageLimitsFromLine, windowName } from './usage-limits.js';
import { createCodexAdapter } from './adapter.js';
import { CAPTURES_DIR } from './testing/fake-codex.js';

const SESSION = 'rollout-2026-11-22T03-24-31-01a20148-b4b2-79a1-8a35-96c1c4f476c8.jsonl';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function codexHome(): Promise<string> {
  const t = await makeTempDir('toolbridge-codex-home-');
  cleanups.push(t.cleanup);
  return t.dir;
}

async function putSession(home: string, day: string, name: string, content: string): Promise<string> {
  const dir = path.join(home, 'sessions', ...day.split('/'));
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  await writeFile(file, content);
  return file;
}

function tokenCount(timestamp: string, rateLimits: unknown): string {
  return JSON.stringify({ timestamp, type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: rateLimits } });
}

describe('windowName', () => {
  it('names windows by length', () => {
    expect(windowName(300, 'primary')).toBe('five_hour');
    expect(windowName(10080, 'secondary')).toBe('seven_day');
    expect(windowName(1440, 'x')).toBe('1_day');
    expect(windowName(120, 'x')).toBe('2_hour');
    expect(windowName(45, 'x')).toBe('45_minute');
    expect(windowName(undefined, 'primary')).toBe('primary');
  });
});

describe('readUsageLimits', () => {
  it('reads the windows from the real session log Codex wrote', async () => {
    const home = await codexHome();
    await mkdir(path.join(home, 'sessions/2026/11/22'), { recursive: true });
    await copyFile(path.join(CAPTURES_DIR, 'codex-home-sessions', SESSION), path.join(home, 'sessions/2026/11/22', SESSION));
    const limits = await readUsageLimits(home);
    expect(limits).toEqual({
      status: 'available',
      source: 'local_session',
      windows: {
        five_hour: {
          usedPercentage: 42.5,
          remainingPercentage: 57.5,
          resetsAt: new Date(1795321471 * 1000).toISOString(),
          windowMinutes: 300,
        },
        seven_day: {
          usedPercentage: 7,
          remainingPercentage: 93,
          resetsAt: new Date(1795404271 * 1000).toISOString(),
          windowMinutes: 10080,
        },
      },
      observedAt: '2026-11-22T03:24:31.938Z',
    });
  });

  it('is what the adapter reports from $CODEX_HOME', async () => {
    const home = await codexHome();
    await mkdir(path.join(home, 'sessions/2026/11/22'), { recursive: true });
    await copyFile(path.join(CAPTURES_DIR, 'codex-home-sessions', SESSION), path.join(home, 'sessions/2026/11/22', SESSION));
    const ctx = { config: {}, env: { CODEX_HOME: home }, signal: new AbortController().signal };
    const limits = await createCodexAdapter().usageLimits!(ctx);
    expect(limits.windows?.five_hour?.usedPercentage).toBe(42.5);
    // Without CODEX_HOME, ~/.codex under the given HOME.
    const home2 = await codexHome();
    const limits2 = await createCodexAdapter().usageLimits!({ ...ctx, env: { HOME: home2 } });
    expect(limits2.status).toBe('unavailable');
    expect(limits2.reason).toContain(path.join(home2, '.codex', 'sessions'));
  });

  it('takes the newest snapshot: newest day, newest file, newest line', async () => {
    const home = await codexHome();
    const at = (pct: number) => ({ primary: { used_percent: pct, window_minutes: 300, resets_at: 1795321471 }, plan_type: 'plus' });
    await putSession(home, '2026/11/21', 'rollout-2026-11-21T23-00-00-a.jsonl', tokenCount('2026-11-21T23:00:00Z', at(90)) + '\n');
    // Day 9 sorts after 10 as text; numeric order must win.
    await putSession(home, '2026/11/9', 'rollout-2026-11-09T10-00-00-a.jsonl', tokenCount('2026-11-09T10:00:00Z', at(95)) + '\n');
    await putSession(
      home,
      '2026/11/22',
      'rollout-2026-11-22T01-00-00-a.jsonl',
      [tokenCount('2026-11-22T01:00:00Z', at(10)), tokenCount('2026-11-22T01:05:00Z', at(11))].join('\n') + '\n',
    );
    await putSession(
      home,
      '2026/11/22',
      'rollout-2026-11-22T02-00-00-b.jsonl',
      [
        tokenCount('2026-11-22T02:00:00Z', at(20)),
        tokenCount('2026-11-22T02:05:00Z', at(21)),
        '{"type":"event_msg","payload":{"type":"task_complete"}}',
      ].join('\n') + '\n',
    );
    const limits = await readUsageLimits(home);
    expect(limits).toMatchObject({ status: 'available', plan: 'plus', observedAt: '2026-11-22T02:05:00.000Z' });
    expect(limits.windows?.five_hour?.usedPercentage).toBe(21);
  });

  it('skips newer files without rate limits (API-key sessions, null limits) and keeps looking', async () => {
    const home = await codexHome();
    await putSession(
      home,
      '2026/11/20',
      'rollout-2026-11-20T00-00-00-a.jsonl',
      tokenCount('2026-11-20T00:00:00Z', { primary: { used_percent: 33, window_minutes: 300, resets_at: 1795321471 } }) + '\n',
    );
    await putSession(home, '2026/11/22', 'rollout-2026-11-22T00-00-00-a.jsonl', tokenCount('2026-11-22T00:00:00Z', null) + '\n');
    const limits = await readUsageLimits(home);
    expect(limits.windows?.five_hour?.usedPercentage).toBe(33);
  });

  it('accepts resets_in_seconds, counted from the line timestamp', () => {
    const limits = usageLimitsFromLine(
      tokenCount('2026-11-22T03:00:00.000Z', {
        primary: { used_percent: 12.3, window_minutes: 300, resets_in_seconds: 3600 },
        secondary: { used_percent: 99.9, window_minutes: 10080, resets_in_seconds: 86400 },
      }),
    );
    expect(limits?.windows).toEqual({
      five_hour: { usedPercentage: 12.3, remainingPercentage: 87.7, resetsAt: '2026-11-22T04:00:00.000Z', windowMinutes: 300 },
      seven_day: { usedPercentage: 99.9, remainingPercentage: 0.1, resetsAt: '2026-11-23T03:00:00.000Z', windowMinutes: 10080 },
    });
  });

  it('reads only the tail of a long session, dropping the torn first line', async () => {
    const home = await codexHome();
    const bulky = JSON.stringify({ type: 'response_item', payload: { text: 'x'.repeat(300_000) } });
    const last = tokenCount('2026-11-22T05:00:00Z', { primary: { used_percent: 50, window_minutes: 60, resets_at: 1795321471 } });
    await putSession(home, '2026/11/22', 'rollout-2026-11-22T05-00-00-a.jsonl', `${bulky}\n${last}\n`);
    const limits = await readUsageLimits(home, { tailBytes: 4096 });
    expect(limits.windows?.['1_hour']?.usedPercentage).toBe(50);
    // A token_count beyond the tail is not seen: the read really is bounded.
    await putSession(home, '2026/11/22', 'rollout-2026-11-22T06-00-00-a.jsonl', `${last}\n${bulky}\n`);
    const bounded = await readUsageLimits(home, { tailBytes: 4096, maxFiles: 1 });
    expect(bounded.status).toBe('unavailable');
  });

  it('reports unavailable with a reason when there are no sessions', async () => {
    const home = await codexHome();
    expect(await readUsageLimits(home)).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('no Codex session logs') });
    await putSession(home, '2026/11/22', 'rollout-2026-11-22T00-00-00-a.jsonl', '{"type":"session_meta"}\n');
    expect(await readUsageLimits(home)).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('no usage-limit data') });
  });
});
