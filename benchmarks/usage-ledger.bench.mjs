// The usage ledger must stay off the chat's path: recording a finished chat costs the chat's
// thread only a few microseconds (the append runs after), and GET /usage over a full ledger
// (some 30 000 chats, its 8 MiB bound) answers from memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UsageLedger, usageQuery } from '../packages/core/src/usage-ledger.ts';

const record = (i) => ({
  at: new Date(Date.now() - (i % 7) * 86_400_000).toISOString(),
  toolId: ['codex', 'claude-code', 'opencode'][i % 3],
  model: 'gpt-5',
  transport: 'warm',
  outcome: i % 10 ? 'succeeded' : 'failed',
  durationMs: 1234,
  inputTokens: 1000,
  outputTokens: 200,
  cachedInputTokens: 500,
});

export default async function () {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolbridge-bench-ledger-'));
  try {
    const ledger = new UsageLedger({ dir });
    let sync = 0;
    const N = 30_000;
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      ledger.recordChat(record(i));
      sync += performance.now() - t;
      if (i % 100 === 99) await ledger.flush();
    }
    await ledger.flush();
    const t0 = performance.now();
    const fresh = new UsageLedger({ dir });
    await fresh.summary(usageQuery());
    const loadMs = performance.now() - t0;
    const times = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await fresh.summary(usageQuery({ groupBy: 'day' }));
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return [
      { name: 'usage ledger: recording a chat, on the chat’s thread', value: (sync / N) * 1000, unit: 'µs', target: 100, better: 'lower' },
      {
        name: 'usage ledger: first GET /usage after a restart (30 000 chats on disk)',
        value: loadMs,
        unit: 'ms',
        target: 500,
        better: 'lower',
      },
      { name: 'usage ledger: GET /usage by day over 30 000 chats (median)', value: times[10], unit: 'ms', target: 50, better: 'lower' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
