// Pi warm vs cold (issue 29): the real, pinned `pi` against the test kit's chat-completions mock
// (it answers at once), the mock declared in the user's `~/.pi/agent/models.json`, a throwaway HOME.
//  1. a cold `pi --mode json -p` spawned directly (the prompt on stdin, as a caller without Toolbridge would);
//  2. the same chat through the bridge (`toolbridge serve`, HTTP, one project directory), answered
//     by its warm `pi --mode rpc` (a new Pi session per chat): median, ratio, first delta;
//  3. the warm process's memory, and what idle shutdown gives back (nothing left running).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, pathWith, realCliBinDir, startMockOpenAIServer } from '../packages/test-suite/src/index.ts';
import { mockModels } from '../packages/adapter-pi/src/testing/mock-models.ts';
import { timeSpawn } from './lib/chat-timing.mjs';
import { warmVsCold } from './lib/warm-vs-cold.mjs';

// A cold `pi --mode json` takes ~1 s idle (several on a loaded 2-core box): 5 runs.
const RUNS = 5;

const direct = (env, cwd) =>
  timeSpawn('pi', ['--mode', 'json', '--model', 'mock/mock-model', '-p'], {
    env: { ...env, PI_CODING_AGENT_DIR: path.join(env.HOME, '.pi', 'agent'), PI_OFFLINE: '1' },
    cwd,
    detached: true,
    answered: (out) => out.includes('"type":"agent_end"'),
  });

export default async function () {
  const mock = await startMockOpenAIServer();
  const home = await makeTempDir('toolbridge-bench-pi-warm-');
  const project = await mkdtemp(path.join(home.dir, 'project-'));
  const userDir = path.join(home.dir, '.pi', 'agent');
  await mkdir(userDir, { recursive: true });
  await writeFile(path.join(userDir, 'models.json'), mockModels(mock.baseURL));
  const env = {
    PATH: pathWith(realCliBinDir('pi')),
    HOME: home.dir,
    XDG_STATE_HOME: path.join(home.dir, '.local', 'state'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    TOOLBRIDGE_PI_MODEL: 'mock/mock-model',
    TOOLBRIDGE_LOG: 'off',
  };
  return warmVsCold({
    toolId: 'pi',
    label: 'Pi',
    env,
    mock,
    home,
    direct: () => direct(env, project),
    fields: { timeoutMs: 120_000, cwd: project },
    runs: RUNS,
    idle: { config: { piModel: 'mock/mock-model' } },
    names: {
      cold: '`pi --mode json -p`',
      warm: 'warm `pi --mode rpc`, same project dir',
      first: 'first chat (starts the RPC process)',
      rss: 'warm process RSS',
    },
  });
}
