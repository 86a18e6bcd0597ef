// Claude Code warm vs cold (issue 16): the real, pinned `claude` against the adapter's mock
// Messages API (it answers at once), in a throwaway HOME with a dummy API key.
//  1. a cold `claude -p` spawned directly, as a caller without Toolbridge would;
//  2. the same chat through the bridge (`toolbridge serve`, HTTP), answered by a warm
//     `claude -p --input-format stream-json` process (a fresh conversation per chat): median,
//     ratio, first streamed delta;
//  3. the warm process's memory, and what idle shutdown gives back (nothing left running).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startMockAnthropic } from '../packages/adapter-claude-code/src/testing/mock-anthropic.ts';
import { realClaudeEnv } from '../packages/adapter-claude-code/src/testing/real.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { median, putConfig, timeChat, timeFirstDelta, timeSpawn, warmLoad } from './lib/chat-timing.mjs';
import { makeTempDir, processesWithEnv, waitFor } from '../packages/test-suite/src/index.ts';

const RUNS = 7;
const MiB = 2 ** 20;

/** `claude -p` with the prompt on stdin, its plain answer on stdout: what a caller without Toolbridge runs. */
const direct = (env, cwd) => timeSpawn('claude', ['-p'], { env, cwd, answered: (out) => out.includes('Hello from mock') });
const chat = (url) => timeChat(url, 'claude-code', { timeoutMs: 60_000 });
const firstDelta = (url) => timeFirstDelta(url, 'claude-code', { timeoutMs: 60_000 });

// The load is read live on every health answer, also from the health cache (a refresh would spend
// seconds in `claude auth status`, longer than the idle time below on a loaded machine).

export default async function () {
  const mock = await startMockAnthropic({ mode: 'ok', text: 'Hello from mock' });
  const home = await makeTempDir('toolbridge-bench-claude-warm-');
  const env = {
    ...realClaudeEnv(mock.url, home.dir),
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    TOOLBRIDGE_LOG: 'off',
  };
  const work = path.join(home.dir, 'work');
  await mkdir(work, { recursive: true });
  // Named, as a user who wants it warm at once would (a tool not used lately starts on its first chat).
  const bridge = await startBridge(env, ['--warm-up', 'claude-code']);
  try {
    await direct(env, work); // warm-up: the page cache, not a process
    const cold = [];
    for (let i = 0; i < RUNS; i++) cold.push(await direct(env, work));

    const first = await chat(bridge.url);
    if (first.transport !== 'warm') throw new Error(`expected the warm transport, got ${first.transport}`);
    await chat(bridge.url);
    const warm = [];
    for (let i = 0; i < RUNS; i++) warm.push((await chat(bridge.url)).ms);
    const deltas = [];
    for (let i = 0; i < 5; i++) deltas.push(await firstDelta(bridge.url));

    const busy = await warmLoad(bridge.url, 'claude-code');
    // Idle shutdown: a short idle time, one chat, then wait it out.
    await putConfig(bridge.url, { warmIdleMs: 3000 });
    await chat(bridge.url);
    const before = (await warmLoad(bridge.url, 'claude-code')).warm;
    await waitFor(async () => (await warmLoad(bridge.url, 'claude-code')).warm.processes === 0, 15_000, 'idle shutdown');
    const after = (await warmLoad(bridge.url, 'claude-code')).warm;
    // The bridge itself has this environment too; everything else under it is Claude Code.
    const claudeLeft = () => processesWithEnv(`HOME=${home.dir}`).filter((pid) => pid !== bridge.pid);
    await waitFor(() => claudeLeft().length === 0, 10_000, 'the warm processes to exit');
    const left = claudeLeft().length;

    const ratio = median(warm) / median(cold);
    return [
      { name: 'Claude Code: cold `claude -p` spawned directly (median of 7)', value: median(cold), unit: 'ms', digits: 0 },
      { name: 'Claude Code: chat through the bridge, warm stream-json process (median of 7)', value: median(warm), unit: 'ms', digits: 0 },
      { name: 'Claude Code: warm chat / direct cold spawn', value: ratio, unit: '×', digits: 2, target: 0.35, better: 'lower' },
      { name: 'Claude Code: first streamed delta through the bridge, warm (median of 5)', value: median(deltas), unit: 'ms', digits: 0 },
      // `serve` starts a process for plain chats in the background as it starts (prewarm).
      { name: 'Claude Code: first chat after `serve` started (warm-up began at start)', value: first.ms, unit: 'ms', digits: 0 },
      { name: 'Claude Code: warm process RSS', value: busy.warm.rssBytes / MiB, unit: 'MiB', digits: 0 },
      { name: 'Claude Code: memory given back by idle shutdown', value: (before.rssBytes - after.rssBytes) / MiB, unit: 'MiB', digits: 0 },
      { name: 'Claude Code: processes left after idle shutdown', value: left, unit: '', digits: 0, target: 0, better: 'lower' },
    ];
  } finally {
    await bridge.stop();
    await mock.close();
    await home.cleanup();
  }
}
