// Codex warm vs cold (issue 16): the real, pinned `codex` against the adapter's mock Responses API
// (it answers at once), set up as a user would (a custom provider in a throwaway CODEX_HOME).
//  1. a cold `codex exec` spawned directly, as a caller without Toolbridge would;
//  2. the same chat through the library in-process (`chatWith('codex', …)`), answered by its warm
//     `codex app-server` (a new thread per chat);
//  3. the same through the bridge (`toolbridge serve`, HTTP): median, ratio, first streamed delta;
//  4. the warm server's memory, and what idle shutdown gives back (read from /proc, not from the
//     adapter's own count), with nothing left running.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { createToolbridge } from '../packages/toolbridge/dist/index.js';
import { startMockResponsesServer } from '../packages/adapter-codex/src/testing/mock-responses-server.ts';
import { makeTempDir, pathWith, processesWithEnv, realCliBinDir } from '../packages/test-suite/src/index.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { median, timeChat, timeFirstDelta, timeSpawn, warmLoad } from './lib/chat-timing.mjs';
import { coldRuns, idleShutdown, processesLeft, warmRuns } from './lib/warm-vs-cold.mjs';

const RUNS = 7;
const MiB = 2 ** 20;

const direct = (env, cwd) =>
  timeSpawn('codex', ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '-c', 'features.shell_snapshot=false', '-'], {
    env,
    cwd,
    answered: (out) => out.includes('turn.completed'),
  });
const chat = (url) => timeChat(url, 'codex', { timeoutMs: 60_000 });
const firstDelta = (url) => timeFirstDelta(url, 'codex', { timeoutMs: 60_000 });

/** Resident memory of these processes, from /proc (a process gone meanwhile counts 0). */
function rssOf(pids) {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited
    }
  }
  return kib * 1024;
}

/** Warm chats through the library in-process: the median, after two that start the server and warm it. */
async function library(env) {
  const toolbridge = createToolbridge({ env });
  const ask = { messages: [{ role: 'user', content: 'Say hello' }] };
  try {
    for (let i = 0; i < 2; i++) {
      const r = await toolbridge.chatWith('codex', ask);
      if (r.result.metadata?.transport !== 'warm') throw new Error(`expected the warm transport, got ${r.result.metadata?.transport}`);
    }
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await toolbridge.chatWith('codex', ask);
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await toolbridge.close();
  }
}

export default async function () {
  const mock = await startMockResponsesServer({ kind: 'reply', text: 'Hello from mock' });
  const home = await makeTempDir('toolbridge-bench-codex-warm-');
  const codexHome = path.join(home.dir, '.codex');
  await mock.writeCodexConfig(codexHome);
  const env = {
    PATH: pathWith(realCliBinDir('codex')),
    HOME: home.dir,
    CODEX_HOME: codexHome,
    MOCK_API_KEY: 'dummy',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    TOOLBRIDGE_LOG: 'off',
  };
  // The bridge has this environment too (the kit's spawner has none); everything else under it is Codex.
  const codexPids = (bridgePid) => processesWithEnv(`CODEX_HOME=${codexHome}`).filter((pid) => pid !== bridgePid);
  // Named, as a user who wants it warm at once would (a tool not used lately starts on its first chat).
  const bridge = await startBridge(env, ['--warm-up', 'codex']);
  try {
    const cold = await coldRuns(() => direct(env, home.dir), RUNS);
    const lib = await library(env);
    const { first, warm, deltas } = await warmRuns({
      chat: () => chat(bridge.url),
      firstDelta: () => firstDelta(bridge.url),
      runs: RUNS,
      deltaRuns: 5,
    });

    const busy = await warmLoad(bridge.url, 'codex', { refresh: true });
    const { measured: before } = await idleShutdown(bridge.url, 'codex', {
      chat: () => chat(bridge.url),
      refresh: true,
      measure: () => rssOf(codexPids(bridge.pid)),
    });
    const left = await processesLeft(`CODEX_HOME=${codexHome}`, bridge.pid);
    const after = rssOf(codexPids(bridge.pid));

    const ratio = median(warm) / median(cold);
    return [
      { name: 'Codex: cold `codex exec` spawned directly (median of 7)', value: median(cold), unit: 'ms', digits: 0 },
      { name: 'Codex: chat through the library in-process, warm app-server (median of 7)', value: lib, unit: 'ms', digits: 0 },
      {
        name: 'Codex: warm library chat / direct cold spawn',
        value: lib / median(cold),
        unit: '×',
        digits: 2,
        target: 0.35,
        better: 'lower',
      },
      { name: 'Codex: chat through the bridge, warm app-server (median of 7)', value: median(warm), unit: 'ms', digits: 0 },
      { name: 'Codex: warm bridge chat / direct cold spawn', value: ratio, unit: '×', digits: 2, target: 0.35, better: 'lower' },
      { name: 'Codex: first streamed delta through the bridge, warm (median of 5)', value: median(deltas), unit: 'ms', digits: 0 },
      // `serve` starts app-server in the background as it starts (prewarm): the first chat finds it up or starting.
      { name: 'Codex: first chat after `serve` started (warm-up began at start)', value: first.ms, unit: 'ms', digits: 0 },
      { name: 'Codex: warm app-server RSS (shim + binary)', value: busy.warm.rssBytes / MiB, unit: 'MiB', digits: 0 },
      {
        name: 'Codex: memory given back by idle shutdown (RSS of Codex processes, /proc)',
        value: (before - after) / MiB,
        unit: 'MiB',
        digits: 0,
      },
      { name: 'Codex: processes left after idle shutdown', value: left, unit: 'processes', digits: 0, target: 0, better: 'lower' },
    ];
  } finally {
    await bridge.stop();
    await mock.close();
    await home.cleanup();
  }
}
