// Gemini CLI and Copilot CLI warm over ACP vs cold (issue 26): the real, pinned CLIs against their
// adapters' mock model APIs (they answer at once), a throwaway HOME each.
//  1. a cold headless run spawned directly (`gemini --output-format stream-json`, `copilot
//     --output-format=json`), the prompt on stdin, as a caller without Toolbridge would run it;
//  2. the same chat through the bridge (`toolbridge serve`, HTTP), answered by the warm ACP process
//     (`gemini --acp`, `copilot --acp --stdio`; a new ACP session per chat): median, ratio, first delta;
//  3. the warm process's memory, and what idle shutdown gives back (nothing left running).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startMockGeminiServer } from '../packages/adapter-gemini-cli/src/testing/mock-gemini-server.ts';
import { startMockOpenAIServer } from '../packages/adapter-copilot-cli/src/testing/mock-openai-server.ts';
import {
  cliCacheDir,
  makeTempDir,
  pathWith,
  processesWithEnv,
  REAL_CLIS,
  realCliBinDir,
  waitFor,
} from '../packages/test-suite/src/index.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { median, putConfig, timeChat, timeFirstDelta, timeSpawn, warmLoad } from './lib/chat-timing.mjs';

// A cold run takes ~1 s idle (several on a loaded 2-core box): 5 runs each.
const RUNS = 5;
const MiB = 2 ** 20;

/** One tool's setup: its environment, the direct cold run, and how it is named in results. */
const TOOLS = {
  gemini: {
    label: 'Gemini CLI',
    async setup(home) {
      const mock = await startMockGeminiServer();
      await mkdir(path.join(home, '.gemini'));
      await writeFile(
        path.join(home, '.gemini', 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }),
      );
      const env = {
        PATH: pathWith(realCliBinDir('gemini')),
        HOME: home,
        TMPDIR: process.env.TMPDIR ?? '/tmp',
        GOOGLE_GEMINI_BASE_URL: mock.url,
        GEMINI_API_KEY: 'bench-key',
        TOOLBRIDGE_GEMINI_MODEL: 'gemini-2.5-flash',
        TOOLBRIDGE_LOG: 'off',
      };
      const direct = (cwd) =>
        timeSpawn('gemini', ['--output-format', 'stream-json', '--skip-trust', '--model', 'gemini-2.5-flash'], {
          env: { ...env, GEMINI_CLI_NO_RELAUNCH: 'true' },
          cwd,
          detached: true,
          answered: (out) => out.includes('"type":"result"'),
        });
      return { mock, env, direct };
    },
  },
  copilot: {
    label: 'Copilot CLI',
    async setup(home) {
      const mock = await startMockOpenAIServer();
      // As after Copilot's first launch (it writes this file once).
      await mkdir(path.join(home, '.copilot'));
      await writeFile(path.join(home, '.copilot', 'config.json'), '{ "firstLaunchAt": "2026-01-01T00:00:00.000Z" }\n');
      const env = {
        PATH: pathWith(realCliBinDir('copilot')),
        HOME: home,
        TMPDIR: process.env.TMPDIR ?? '/tmp',
        COPILOT_PKG_CACHE_HOME: path.join(cliCacheDir(), `copilot-pkg-cache@${REAL_CLIS.copilot.version}`),
        COPILOT_PROVIDER_BASE_URL: mock.baseURL,
        COPILOT_OFFLINE: 'true',
        TOOLBRIDGE_COPILOT_MODEL: 'mock-model',
        TOOLBRIDGE_LOG: 'off',
      };
      const direct = (cwd) =>
        timeSpawn('copilot', ['--output-format=json', '--no-auto-update', '--model=mock-model'], {
          env,
          cwd,
          detached: true,
          answered: (out) => out.includes('assistant.message'),
        });
      return { mock, env, direct };
    },
  },
};

async function bench(toolId) {
  const tool = TOOLS[toolId];
  const home = await makeTempDir(`toolbridge-bench-${toolId}-acp-`);
  const project = await mkdtemp(path.join(home.dir, 'project-'));
  const { mock, env, direct } = await tool.setup(home.dir);
  const bridge = await startBridge(env);
  try {
    await direct(project); // warm-up: the page cache and the CLI's first-run files, not a process
    const cold = [];
    for (let i = 0; i < RUNS; i++) cold.push(await direct(project));

    const fields = { timeoutMs: 120_000, cwd: project };
    const first = await timeChat(bridge.url, toolId, fields);
    if (first.transport !== 'warm') throw new Error(`expected the warm transport, got ${first.transport}`);
    await timeChat(bridge.url, toolId, fields);
    const warm = [];
    for (let i = 0; i < RUNS; i++) warm.push((await timeChat(bridge.url, toolId, fields)).ms);
    const deltas = [];
    for (let i = 0; i < RUNS; i++) deltas.push(await timeFirstDelta(bridge.url, toolId, fields));

    const busy = await warmLoad(bridge.url, toolId, { refresh: true });
    await putConfig(bridge.url, { warmIdleMs: 1000 });
    await timeChat(bridge.url, toolId, fields);
    await waitFor(async () => (await warmLoad(bridge.url, toolId, { refresh: true })).warm.processes === 0, 15_000, 'idle shutdown');
    const after = (await warmLoad(bridge.url, toolId, { refresh: true })).warm;
    const left = () => processesWithEnv(`HOME=${home.dir}`).filter((pid) => pid !== bridge.pid);
    await waitFor(() => left().length === 0, 10_000, 'the warm processes to exit');

    const name = tool.label;
    return [
      { name: `${name}: cold headless run spawned directly (median of 5)`, value: median(cold), unit: 'ms', digits: 0 },
      { name: `${name}: chat through the bridge, warm ACP process (median of 5)`, value: median(warm), unit: 'ms', digits: 0 },
      {
        name: `${name}: warm chat / direct cold spawn`,
        value: median(warm) / median(cold),
        unit: '×',
        digits: 2,
        target: 0.35,
        better: 'lower',
      },
      { name: `${name}: first streamed delta through the bridge, warm (median of 5)`, value: median(deltas), unit: 'ms', digits: 0 },
      { name: `${name}: warm ACP process RSS`, value: busy.warm.rssBytes / MiB, unit: 'MiB', digits: 0 },
      { name: `${name}: memory given back by idle shutdown`, value: (busy.warm.rssBytes - after.rssBytes) / MiB, unit: 'MiB', digits: 0 },
      { name: `${name}: processes left after idle shutdown`, value: left().length, unit: '', digits: 0, target: 0, better: 'lower' },
    ];
  } finally {
    await bridge.stop();
    await mock.close();
    await home.cleanup();
  }
}

export default async function () {
  return [...(await bench('gemini')), ...(await bench('copilot'))];
}
