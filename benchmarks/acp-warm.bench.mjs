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
import { cliCacheDir, makeTempDir, pathWith, REAL_CLIS, realCliBinDir } from '../packages/test-suite/src/index.ts';
import { timeSpawn } from './lib/chat-timing.mjs';
import { warmVsCold } from './lib/warm-vs-cold.mjs';

// A cold run takes ~1 s idle (several on a loaded 2-core box): 5 runs each.
const RUNS = 5;

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
  return warmVsCold({
    toolId,
    label: tool.label,
    env,
    mock,
    home,
    // The warm-up run also writes the CLI's first-run files.
    direct: () => direct(project),
    fields: { timeoutMs: 120_000, cwd: project },
    runs: RUNS,
    idle: { refresh: true },
    names: { cold: 'headless run', warm: 'warm ACP process', rss: 'warm ACP process RSS' },
  });
}

export default async function () {
  return [...(await bench('gemini')), ...(await bench('copilot'))];
}
