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
import { timeSpawn } from './lib/chat-timing.mjs';
import { warmVsCold } from './lib/warm-vs-cold.mjs';
import { makeTempDir } from '../packages/test-suite/src/index.ts';

const RUNS = 7;

/** `claude -p` with the prompt on stdin, its plain answer on stdout: what a caller without Toolbridge runs. */
const direct = (env, cwd) => timeSpawn('claude', ['-p'], { env, cwd, answered: (out) => out.includes('Hello from mock') });

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
  return warmVsCold({
    toolId: 'claude-code',
    label: 'Claude Code',
    env,
    warmUp: true,
    mock,
    home,
    direct: () => direct(env, work),
    fields: { timeoutMs: 60_000 },
    runs: RUNS,
    deltaRuns: 5,
    idle: { ms: 3000, fromChat: true },
    names: {
      cold: '`claude -p`',
      warm: 'warm stream-json process',
      rss: 'warm process RSS',
    },
  });
}
