// OpenCode warm vs cold (issue 16): the real, pinned `opencode` against the adapter's mock
// chat-completions API (it answers at once), the mock declared as a provider in
// OPENCODE_CONFIG_CONTENT (as a user's config would), a throwaway HOME.
//  1. a cold `opencode run --title` spawned directly (one model call, as the bridge's spawn path);
//  2. the same chat through the bridge (`toolbridge serve`, HTTP, in the app's project directory),
//     answered by its warm `opencode serve` (a new session per chat): median, ratio, first delta;
//  3. a chat with no `cwd` (core's fresh private directory: serve bootstraps each new directory);
//  4. the warm server's memory, and what idle shutdown gives back (nothing left running).
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { mockProviderConfig, startMockOpenAIServer } from '../packages/adapter-opencode/src/testing/mock-openai-server.ts';
import { makeTempDir, pathWith, processesWithEnv, realCliBinDir, waitFor } from '../packages/test-suite/src/index.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { median, putConfig, timeChat, timeFirstDelta, timeSpawn, warmLoad } from './lib/chat-timing.mjs';

// `opencode run` takes ~2.4 s idle (10 s+ on a loaded 2-core box): 5 runs keep this near 90 s.
const RUNS = 5;
const MiB = 2 ** 20;

const direct = (env, cwd) =>
  timeSpawn('opencode', ['run', '--format', 'json', '-m', 'mock/mock-model', '--title', 'bench'], {
    env,
    cwd,
    detached: true,
    answered: (out) => out.includes('"type":"text"'),
  });
const fields = (cwd) => ({ timeoutMs: 120_000, ...(cwd ? { cwd } : {}) });
const chat = (url, cwd) => timeChat(url, 'opencode', fields(cwd));
const firstDelta = (url, cwd) => timeFirstDelta(url, 'opencode', fields(cwd));

export default async function () {
  const mock = await startMockOpenAIServer();
  const home = await makeTempDir('toolbridge-bench-opencode-warm-');
  const project = await mkdtemp(path.join(home.dir, 'project-'));
  const env = {
    PATH: pathWith(realCliBinDir('opencode')),
    HOME: home.dir,
    XDG_DATA_HOME: path.join(home.dir, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home.dir, '.config'),
    XDG_CACHE_HOME: path.join(home.dir, '.cache'),
    XDG_STATE_HOME: path.join(home.dir, '.local', 'state'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_CONFIG_CONTENT: mockProviderConfig(mock.baseURL),
    TOOLBRIDGE_OPENCODE_MODEL: 'mock/mock-model',
    TOOLBRIDGE_LOG: 'off',
  };
  // Named, as a user who wants it warm at once would (a tool not used lately starts on its first chat).
  const bridge = await startBridge(env, ['--warm-up', 'opencode']);
  try {
    await direct(env, project); // warm-up: the page cache and OpenCode's first-run files, not a process
    const cold = [];
    for (let i = 0; i < RUNS; i++) cold.push(await direct(env, project));

    const first = await chat(bridge.url, project);
    if (first.transport !== 'warm') throw new Error(`expected the warm transport, got ${first.transport} (${first.why})`);
    await chat(bridge.url, project);
    const warm = [];
    for (let i = 0; i < RUNS; i++) warm.push((await chat(bridge.url, project)).ms);
    const deltas = [];
    for (let i = 0; i < RUNS; i++) deltas.push(await firstDelta(bridge.url, project));
    const fresh = [];
    for (let i = 0; i < 3; i++) fresh.push((await chat(bridge.url)).ms);

    const busy = await warmLoad(bridge.url, 'opencode');
    // Idle shutdown: a short idle time, one chat, then wait it out.
    await putConfig(bridge.url, { warmIdleMs: 1000 });
    await chat(bridge.url, project);
    await waitFor(async () => (await warmLoad(bridge.url, 'opencode')).warm.processes === 0, 15_000, 'idle shutdown');
    const after = (await warmLoad(bridge.url, 'opencode')).warm;
    // The bridge itself has this environment too; everything else under it is OpenCode.
    const left = () => processesWithEnv(`HOME=${home.dir}`).filter((pid) => pid !== bridge.pid);
    await waitFor(() => left().length === 0, 10_000, 'the warm processes to exit');

    const ratio = median(warm) / median(cold);
    return [
      { name: 'OpenCode: cold `opencode run --title` spawned directly (median of 5)', value: median(cold), unit: 'ms', digits: 0 },
      { name: 'OpenCode: chat through the bridge, warm serve, same project dir (median of 5)', value: median(warm), unit: 'ms', digits: 0 },
      { name: 'OpenCode: warm chat / direct cold spawn', value: ratio, unit: '×', digits: 2, target: 0.35, better: 'lower' },
      { name: 'OpenCode: first streamed delta through the bridge, warm (median of 5)', value: median(deltas), unit: 'ms', digits: 0 },
      // serve bootstraps every directory it has not seen (0.8–2 s measured): a chat without cwd gets a new private one.
      { name: 'OpenCode: warm chat with no cwd (a new private directory each, median of 3)', value: median(fresh), unit: 'ms', digits: 0 },
      // `serve` starts opencode serve in the background as it starts (prewarm): the first chat finds it up or starting.
      { name: 'OpenCode: first chat after `serve` started (warm-up began at start)', value: first.ms, unit: 'ms', digits: 0 },
      { name: 'OpenCode: warm serve RSS (guard + opencode serve)', value: busy.warm.rssBytes / MiB, unit: 'MiB', digits: 0 },
      { name: 'OpenCode: memory given back by idle shutdown', value: (busy.warm.rssBytes - after.rssBytes) / MiB, unit: 'MiB', digits: 0 },
      { name: 'OpenCode: processes left after idle shutdown', value: left().length, unit: '', digits: 0, target: 0, better: 'lower' },
    ];
  } finally {
    await bridge.stop();
    await mock.close();
    await home.cleanup();
  }
}
