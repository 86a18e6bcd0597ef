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
import { makeTempDir, pathWith, realCliBinDir } from '../packages/test-suite/src/index.ts';
import { median, timeSpawn } from './lib/chat-timing.mjs';
import { warmVsCold } from './lib/warm-vs-cold.mjs';

// `opencode run` takes ~2.4 s idle (10 s+ on a loaded 2-core box): 5 runs keep this near 90 s.
const RUNS = 5;

const direct = (env, cwd) =>
  timeSpawn('opencode', ['run', '--format', 'json', '-m', 'mock/mock-model', '--title', 'bench'], {
    env,
    cwd,
    detached: true,
    answered: (out) => out.includes('"type":"text"'),
  });

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
  return warmVsCold({
    toolId: 'opencode',
    label: 'OpenCode',
    env,
    warmUp: true,
    mock,
    home,
    // The warm-up run also writes OpenCode's first-run files.
    direct: () => direct(env, project),
    fields: { timeoutMs: 120_000, cwd: project },
    runs: RUNS,
    // serve bootstraps every directory it has not seen (0.8–2 s measured): a chat without cwd gets a new private one.
    extra: async (chat) => {
      const fresh = [];
      for (let i = 0; i < 3; i++) fresh.push((await chat({ cwd: undefined })).ms);
      return [
        {
          name: 'OpenCode: warm chat with no cwd (a new private directory each, median of 3)',
          value: median(fresh),
          unit: 'ms',
          digits: 0,
        },
      ];
    },
    names: {
      cold: '`opencode run --title`',
      warm: 'warm serve, same project dir',
      rss: 'warm serve RSS (guard + opencode serve)',
    },
  });
}
