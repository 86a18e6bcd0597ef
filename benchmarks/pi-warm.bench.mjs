// Pi warm vs cold (issue 29): the real, pinned `pi` against the test kit's chat-completions mock
// (it answers at once), the mock declared in the user's `~/.pi/agent/models.json`, a throwaway HOME.
//  1. a cold `pi --mode json -p` spawned directly (the prompt on stdin, as a caller without Toolbridge would);
//  2. the same chat through the bridge (`toolbridge serve`, HTTP, one project directory), answered
//     by its warm `pi --mode rpc` (a new Pi session per chat): median, ratio, first delta;
//  3. the warm process's memory, and what idle shutdown gives back (nothing left running).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  makeTempDir,
  pathWith,
  processesWithEnv,
  realCliBinDir,
  startMockOpenAIServer,
  waitFor,
} from '../packages/test-suite/src/index.ts';
import { mockModels } from '../packages/adapter-pi/src/testing/mock-models.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { median, putConfig, timeChat, timeFirstDelta, timeSpawn, warmLoad } from './lib/chat-timing.mjs';

// A cold `pi --mode json` takes ~1 s idle (several on a loaded 2-core box): 5 runs.
const RUNS = 5;
const MiB = 2 ** 20;

const direct = (env, cwd) =>
  timeSpawn('pi', ['--mode', 'json', '--model', 'mock/mock-model', '-p'], {
    env: { ...env, PI_CODING_AGENT_DIR: path.join(env.HOME, '.pi', 'agent'), PI_OFFLINE: '1' },
    cwd,
    detached: true,
    answered: (out) => out.includes('"type":"agent_end"'),
  });
const fields = (cwd) => ({ timeoutMs: 120_000, cwd });
const chat = (url, cwd) => timeChat(url, 'pi', fields(cwd));
const firstDelta = (url, cwd) => timeFirstDelta(url, 'pi', fields(cwd));

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
  const bridge = await startBridge(env);
  try {
    await direct(env, project); // warm-up: the page cache, not a process
    const cold = [];
    for (let i = 0; i < RUNS; i++) cold.push(await direct(env, project));

    const first = await chat(bridge.url, project);
    if (first.transport !== 'warm') throw new Error(`expected the warm transport, got ${first.transport}`);
    await chat(bridge.url, project);
    const warm = [];
    for (let i = 0; i < RUNS; i++) warm.push((await chat(bridge.url, project)).ms);
    const deltas = [];
    for (let i = 0; i < RUNS; i++) deltas.push(await firstDelta(bridge.url, project));

    const busy = await warmLoad(bridge.url, 'pi');
    await putConfig(bridge.url, { warmIdleMs: 1000, piModel: 'mock/mock-model' });
    await chat(bridge.url, project);
    await waitFor(async () => (await warmLoad(bridge.url, 'pi')).warm.processes === 0, 15_000, 'idle shutdown');
    const after = (await warmLoad(bridge.url, 'pi')).warm;
    // The bridge itself has this environment too; everything else under it is Pi.
    const left = () => processesWithEnv(`HOME=${home.dir}`).filter((pid) => pid !== bridge.pid);
    await waitFor(() => left().length === 0, 10_000, 'the warm processes to exit');

    const ratio = median(warm) / median(cold);
    return [
      { name: 'Pi: cold `pi --mode json -p` spawned directly (median of 5)', value: median(cold), unit: 'ms', digits: 0 },
      {
        name: 'Pi: chat through the bridge, warm `pi --mode rpc`, same project dir (median of 5)',
        value: median(warm),
        unit: 'ms',
        digits: 0,
      },
      { name: 'Pi: warm chat / direct cold spawn', value: ratio, unit: '×', digits: 2, target: 0.35, better: 'lower' },
      { name: 'Pi: first streamed delta through the bridge, warm (median of 5)', value: median(deltas), unit: 'ms', digits: 0 },
      { name: 'Pi: first chat (starts the RPC process)', value: first.ms, unit: 'ms', digits: 0 },
      { name: 'Pi: warm process RSS', value: busy.warm.rssBytes / MiB, unit: 'MiB', digits: 0 },
      { name: 'Pi: memory given back by idle shutdown', value: (busy.warm.rssBytes - after.rssBytes) / MiB, unit: 'MiB', digits: 0 },
      { name: 'Pi: processes left after idle shutdown', value: left().length, unit: '', digits: 0, target: 0, better: 'lower' },
    ];
  } finally {
    await bridge.stop();
    await mock.close();
    await home.cleanup();
  }
}
