import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidRequestError } from './errors.js';
import { summarize, UsageLedger, usageQuery, usageRecordOf } from './usage-ledger.js';
import type { UsageRecord } from './wire/usage.js';

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'ledger-'));

const record = (over: Partial<UsageRecord> = {}): UsageRecord => ({
  at: new Date().toISOString(),
  toolId: 'codex',
  outcome: 'succeeded',
  durationMs: 100,
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 2,
  ...over,
});

describe('usage ledger', () => {
  it('keeps every chat in a private file (0600 in a 0700 folder) that a new ledger reads back', async () => {
    const dir = path.join(tempDir(), 'usage');
    const ledger = new UsageLedger({ dir });
    ledger.recordChat(record());
    ledger.recordChat(record({ toolId: 'claude-code', outcome: 'failed', errorCode: 'timeout', inputTokens: undefined }));
    await ledger.flush();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'chats.jsonl')).mode & 0o777).toBe(0o600);
    const again = new UsageLedger({ dir });
    const summary = await again.summary(usageQuery());
    expect(summary.groups).toEqual([
      { key: 'claude-code', chats: 1, succeeded: 0, failed: 1, inputTokens: 0, outputTokens: 5, cachedInputTokens: 2 },
      { key: 'codex', chats: 1, succeeded: 1, failed: 0, inputTokens: 10, outputTokens: 5, cachedInputTokens: 2 },
    ]);
  });

  it('skips a line torn by a crash and never glues the next record to it', async () => {
    const dir = tempDir();
    const first = new UsageLedger({ dir });
    first.recordChat(record({ toolId: 'a' }));
    await first.flush();
    appendFileSync(path.join(dir, 'chats.jsonl'), '{"at":"2026-01-01T00:00:00Z","toolId":"tor');
    const second = new UsageLedger({ dir });
    second.recordChat(record({ toolId: 'b' }));
    await second.flush();
    const keys = (await new UsageLedger({ dir }).summary(usageQuery())).groups.map((g) => g.key);
    expect(keys).toEqual(['a', 'b']);
  });

  it('stays within its bound, dropping the oldest chats first', async () => {
    const dir = tempDir();
    const ledger = new UsageLedger({ dir, maxBytes: 4096 });
    for (let i = 0; i < 200; i++) ledger.recordChat(record({ model: `m${i}` }));
    await ledger.flush();
    const size = statSync(path.join(dir, 'chats.jsonl')).size;
    expect(size).toBeLessThanOrEqual(4096);
    const kept = (await new UsageLedger({ dir, maxBytes: 4096 }).records(new Date(0))).map((r) => r.model);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.at(-1)).toBe('m199');
    expect(kept).toEqual(kept.slice().sort((a, b) => Number(a!.slice(1)) - Number(b!.slice(1))));
  });

  it('a process killed with SIGKILL loses at most the chat it was writing', async () => {
    const dir = tempDir();
    const here = path.dirname(fileURLToPath(import.meta.url));
    const script = `
      import { UsageLedger } from ${JSON.stringify(path.join(here, 'usage-ledger.ts'))};
      const ledger = new UsageLedger({ dir: ${JSON.stringify(dir)} });
      for (let i = 0; ; i++) {
        ledger.recordChat({ at: new Date().toISOString(), toolId: 't', outcome: 'succeeded', durationMs: i });
        await ledger.flush();
        process.stdout.write(i + '\\n');
      }`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let confirmed = -1;
    await new Promise<void>((resolve) => {
      child.on('exit', () => resolve());
      child.stdout.on('data', (d: Buffer) => {
        const lines = d.toString().trim().split('\n');
        confirmed = Number(lines.at(-1));
        if (confirmed >= 200) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((r) => child.on('exit', r));
    const records = await new UsageLedger({ dir }).records(new Date(0));
    // Every chat the process had confirmed is there, in order; at most one more made it.
    expect(records.length).toBeGreaterThanOrEqual(confirmed + 1);
    expect(records.map((r) => r.durationMs)).toEqual([...Array(records.length).keys()]);
    expect(readFileSync(path.join(dir, 'chats.jsonl'), 'utf8').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(records.length);
  });

  it('keeps window snapshots per tool, filtered by tool and time', async () => {
    const dir = tempDir();
    const ledger = new UsageLedger({ dir });
    const w = (used: number) => ({
      status: 'available' as const,
      windows: { five_hour: { usedPercentage: used, remainingPercentage: 100 - used } },
    });
    ledger.recordWindows('codex', w(10), Date.parse('2026-01-01T00:00:00Z'));
    ledger.recordWindows('claude-code', w(20), Date.parse('2026-01-02T00:00:00Z'));
    ledger.recordWindows('codex', w(30), Date.parse('2026-01-03T00:00:00Z'));
    ledger.recordWindows('codex', { status: 'unavailable', reason: 'none yet' }, Date.now());
    await ledger.flush();
    const again = new UsageLedger({ dir });
    expect((await again.windowSnapshots()).map((s) => s.toolId)).toEqual(['codex', 'claude-code', 'codex']);
    expect(await again.windowSnapshots({ toolId: 'codex', since: new Date('2026-01-02T00:00:00Z') })).toEqual([
      { toolId: 'codex', at: '2026-01-03T00:00:00.000Z', windows: w(30).windows },
    ]);
  });
});

describe('usage queries and records', () => {
  it('defaults to the last 7 days by tool and refuses bad values', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    expect(usageQuery({}, now)).toEqual({ since: new Date('2026-03-03T12:00:00Z'), until: new Date(now), groupBy: 'tool' });
    for (const bad of [
      { since: 'yesterday' },
      { until: '2026-13-45' },
      { groupBy: 'week' },
      { since: '2026-03-10', until: '2026-03-01' },
      { since: ['2026-01-01'] },
    ]) {
      expect(() => usageQuery(bad, now)).toThrow(InvalidRequestError);
    }
  });

  it('groups by day and by model, summing reported costs only', () => {
    const records = [
      record({ at: '2026-03-01T10:00:00Z', model: 'gpt-5', costUsd: 0.01 }),
      record({ at: '2026-03-01T23:00:00Z', model: 'gpt-5', costUsd: 0.02 }),
      record({ at: '2026-03-02T01:00:00Z' }),
      record({ at: '2026-02-01T01:00:00Z' }),
    ];
    const q = { since: new Date('2026-03-01T00:00:00Z'), until: new Date('2026-03-03T00:00:00Z') };
    expect(summarize(records, { ...q, groupBy: 'day' }).groups.map((g) => [g.key, g.chats, g.costUsd])).toEqual([
      ['2026-03-01', 2, 0.03],
      ['2026-03-02', 1, undefined],
    ]);
    expect(summarize(records, { ...q, groupBy: 'model' }).groups.map((g) => g.key)).toEqual(['gpt-5', 'unknown']);
  });

  it('records counts and facts of a chat, never its text', () => {
    const r = usageRecordOf(
      'claude-code',
      {
        result: {
          message: { role: 'assistant', content: 'secret answer' },
          usage: { input_tokens: 3, cache_read_input_tokens: 7, output_tokens: 4 },
          model: 'sonnet',
          metadata: { transport: 'warm', totalCostUsd: 0.5 },
        },
      },
      12.3,
      {},
    );
    expect(r).toMatchObject({
      toolId: 'claude-code',
      outcome: 'succeeded',
      model: 'sonnet',
      transport: 'warm',
      inputTokens: 10,
      cachedInputTokens: 7,
      outputTokens: 4,
      costUsd: 0.5,
      durationMs: 12,
    });
    expect(JSON.stringify(r)).not.toContain('secret');
  });
});
