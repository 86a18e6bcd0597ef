// Health must stay fast for people with thousands of Codex sessions: usage limits
// read only the newest files' tails, whatever the history holds.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readUsageLimits } from '../packages/adapter-codex/dist/usage-limits.js';

const FIXTURE = fileURLToPath(
  new URL(
    '../packages/adapter-codex/src/testing/captures/codex-home-sessions/rollout-2026-11-22T03-24-31-01a20148-b4b2-79a1-8a35-96c1c4f476c8.jsonl',
    import.meta.url,
  ),
);

export default async function () {
  const home = mkdtempSync(path.join(tmpdir(), 'toolbridge-bench-codex-'));
  try {
    const session = readFileSync(FIXTURE, 'utf8');
    // 2000 sessions over 100 days, each ~0.3 MB (the real log padded with history before its token_count line).
    const padding = session.split('\n').slice(0, 12).join('\n').repeat(8) + '\n';
    for (let i = 0; i < 2000; i++) {
      const day = new Date(Date.UTC(2026, 7, 1) + Math.floor(i / 20) * 86_400_000);
      const dir = path.join(
        home,
        'sessions',
        String(day.getUTCFullYear()),
        String(day.getUTCMonth() + 1).padStart(2, '0'),
        String(day.getUTCDate()).padStart(2, '0'),
      );
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, `rollout-${day.toISOString().slice(0, 10)}T00-00-${String(i % 60).padStart(2, '0')}-${i}.jsonl`),
        padding + session,
      );
    }
    const times = [];
    let limits;
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      limits = await readUsageLimits(home);
      times.push(performance.now() - t);
    }
    if (limits.status !== 'available') throw new Error(`expected windows, got ${JSON.stringify(limits)}`);
    times.sort((a, b) => a - b);
    return [
      { name: 'Codex usageLimits() with 2000 session files (median)', value: times[15], unit: 'ms', target: 50, better: 'lower' },
      { name: 'Codex usageLimits() with 2000 session files (p95)', value: times[28], unit: 'ms', target: 150, better: 'lower' },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
