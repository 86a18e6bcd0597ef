import path from 'node:path';
import type { FakeCliDefinition } from '@toolbridge/test-suite/kit';
import { CAPTURES_DIR } from './fake-codex.js';

const cap = (name: string) => path.join(CAPTURES_DIR, name);

/**
 * A fake `codex` for whole-machine tests (library, bridge, dashboard): replays the real CLI's
 * recordings. Modes: `ok`, `logged_out`, `fail`, `hang`, `hang-tree` (with a helper child), `slow`,
 * `flood` (prints without end). It has no `app-server` (it answers as a Codex without one does, at
 * once), so every chat it serves takes the spawn path; the warm transport is tested against the
 * real CLI (`real-codex-warm.test.ts`).
 */
export const fakeCodexCli: FakeCliDefinition = {
  bin: 'codex',
  noStdin: ['--version', 'login', 'app-server'],
  env: (home) => ({ CODEX_HOME: path.join(home, '.codex') }),
  routes: [
    { argv: ['--version'], stdoutFile: cap('codex-version.out') },
    { argv: ['app-server'], stderr: "error: unrecognized subcommand 'app-server'\n\nUsage: codex [OPTIONS] [PROMPT]\n", exitCode: 2 },
    { argv: ['login', 'status'], mode: 'logged_out', stderrFile: cap('codex-login-status.err'), exitCode: 1 },
    { argv: ['login', 'status'], stderr: 'Logged in using ChatGPT\n' },
    { argv: ['login'], stderrFile: cap('codex-login-notty.err'), hang: true },
    { argv: ['exec'], mode: 'fail', stdoutFile: cap('codex-err.out'), stderrFile: cap('codex-err.err'), exitCode: 1 },
    { argv: ['exec'], mode: 'hang', stdout: '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n', hang: true },
    { argv: ['exec'], mode: 'hang-tree', stdout: '{"type":"thread.started","thread_id":"t"}\n', hang: true, child: true },
    {
      argv: ['exec'],
      mode: 'flood',
      stdout: '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n',
      floodLine: '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking..."}}\n',
    },
    { argv: ['exec'], mode: 'slow', stdoutFile: cap('codex-mock.out'), stderrFile: cap('codex-mock.err'), delayMs: 300 },
    { argv: ['exec'], stdoutFile: cap('codex-mock.out'), stderrFile: cap('codex-mock.err') },
  ],
};
