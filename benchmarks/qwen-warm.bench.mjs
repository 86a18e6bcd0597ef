// Qwen Code warm vs cold (issue 29): the real, pinned `qwen` on the pinned Node 22 against the
// adapter's mock chat-completions API (it answers at once, memory requests included), a
// throwaway HOME and QWEN_HOME selecting the `openai` sign-in (as a user's settings would).
//  1. a cold `qwen -o stream-json` spawned directly, the prompt on stdin (as the bridge's spawn path);
//  2. the same chat through the bridge (`toolbridge serve`, HTTP, in one project directory),
//     answered by its warm `qwen --input-format stream-json` process (`/clear` between chats);
//  3. the first streamed delta, the warm process's memory, and what idle shutdown gives back.
// ACP (`qwen --acp`, the kit's ACP transport once it lands) could replace the stream-json
// transport; this measures stream-json.
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { startMockQwenServer } from '../packages/adapter-qwen-code/src/testing/mock-openai.ts';
import { realQwenHome } from '../packages/adapter-qwen-code/src/testing/real.ts';
import { processesWithEnv, waitFor } from '../packages/test-suite/src/index.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { median, putConfig, timeChat, timeFirstDelta, timeSpawn, warmLoad } from './lib/chat-timing.mjs';

// A cold `qwen` takes 2.4 s idle (10-35 s on a loaded 2-core box): 5 runs.
const RUNS = 5;
const MiB = 2 ** 20;

const direct = (env, cwd) =>
  timeSpawn(env.TOOLBRIDGE_QWEN_NODE, [path.join(env.QWEN_BIN, 'qwen'), '--output-format', 'stream-json'], {
    env,
    cwd,
    detached: true,
    answered: (out) => out.includes('"type":"result"'),
  });
const fields = (cwd) => ({ timeoutMs: 120_000, cwd });

export default async function () {
  const mock = await startMockQwenServer();
  const real = await realQwenHome(mock.baseURL);
  const project = await mkdtemp(path.join(real.home, 'project-'));
  const env = { ...real.env, QWEN_BIN: real.env.PATH.split(path.delimiter)[0], TOOLBRIDGE_LOG: 'off' };
  const bridge = await startBridge(env);
  try {
    await direct(env, project); // warm-up: the page cache and Qwen Code's first-run files, not a process
    const cold = [];
    for (let i = 0; i < RUNS; i++) cold.push(await direct(env, project));

    const first = await timeChat(bridge.url, 'qwen-code', fields(project));
    if (first.transport !== 'warm') throw new Error(`expected the warm transport, got ${first.transport}`);
    const warm = [];
    for (let i = 0; i < RUNS; i++) warm.push((await timeChat(bridge.url, 'qwen-code', fields(project))).ms);
    const deltas = [];
    for (let i = 0; i < RUNS; i++) deltas.push(await timeFirstDelta(bridge.url, 'qwen-code', fields(project)));

    const busy = await warmLoad(bridge.url, 'qwen-code');
    await putConfig(bridge.url, { warmIdleMs: 1000 });
    await timeChat(bridge.url, 'qwen-code', fields(project));
    await waitFor(async () => (await warmLoad(bridge.url, 'qwen-code')).warm.processes === 0, 15_000, 'idle shutdown');
    const after = (await warmLoad(bridge.url, 'qwen-code')).warm;
    const left = () => processesWithEnv(`HOME=${real.home}`).filter((pid) => pid !== bridge.pid);
    await waitFor(() => left().length === 0, 10_000, 'the warm processes to exit');

    return [
      { name: 'Qwen Code: cold `qwen -o stream-json` spawned directly (median of 5)', value: median(cold), unit: 'ms', digits: 0 },
      { name: 'Qwen Code: chat through the bridge, warm stream-json process (median of 5)', value: median(warm), unit: 'ms', digits: 0 },
      {
        name: 'Qwen Code: warm chat / direct cold spawn',
        value: median(warm) / median(cold),
        unit: '×',
        digits: 2,
        target: 0.35,
        better: 'lower',
      },
      { name: 'Qwen Code: first streamed delta through the bridge, warm (median of 5)', value: median(deltas), unit: 'ms', digits: 0 },
      { name: 'Qwen Code: first chat (starts the warm process)', value: first.ms, unit: 'ms', digits: 0 },
      { name: 'Qwen Code: warm process RSS', value: busy.warm.rssBytes / MiB, unit: 'MiB', digits: 0 },
      { name: 'Qwen Code: memory given back by idle shutdown', value: (busy.warm.rssBytes - after.rssBytes) / MiB, unit: 'MiB', digits: 0 },
      { name: 'Qwen Code: processes left after idle shutdown', value: left().length, unit: '', digits: 0, target: 0, better: 'lower' },
    ];
  } finally {
    await bridge.stop();
    await mock.close();
    await real.cleanup();
  }
}
