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
import { timeSpawn } from './lib/chat-timing.mjs';
import { warmVsCold } from './lib/warm-vs-cold.mjs';

// A cold `qwen` takes 2.4 s idle (10-35 s on a loaded 2-core box): 5 runs.
const RUNS = 5;

const direct = (env, cwd) =>
  timeSpawn(env.TOOLBRIDGE_QWEN_NODE, [path.join(env.QWEN_BIN, 'qwen'), '--output-format', 'stream-json'], {
    env,
    cwd,
    detached: true,
    answered: (out) => out.includes('"type":"result"'),
  });

export default async function () {
  const mock = await startMockQwenServer();
  const real = await realQwenHome(mock.baseURL);
  const project = await mkdtemp(path.join(real.home, 'project-'));
  const env = { ...real.env, QWEN_BIN: real.env.PATH.split(path.delimiter)[0], TOOLBRIDGE_LOG: 'off' };
  return warmVsCold({
    toolId: 'qwen-code',
    label: 'Qwen Code',
    env,
    mock,
    home: { dir: real.home, cleanup: real.cleanup },
    // The warm-up run also writes Qwen Code's first-run files.
    direct: () => direct(env, project),
    fields: { timeoutMs: 120_000, cwd: project },
    runs: RUNS,
    settle: 0,
    names: {
      cold: '`qwen -o stream-json`',
      warm: 'warm stream-json process',
      first: 'first chat (starts the warm process)',
      rss: 'warm process RSS',
    },
  });
}
