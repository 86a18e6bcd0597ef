import path from 'node:path';
import type { FakeCliDefinition } from '@toolbridge/test-suite/kit';
import { capture } from './fake-claude.js';

/**
 * A fake `claude` for whole-machine tests: replays the real CLI's recordings. Modes: `ok`,
 * `logged_out`, `hang`, `hang-tree` (with a helper child).
 */
export const fakeClaudeCli: FakeCliDefinition = {
  bin: 'claude',
  noStdin: ['--version', 'auth'],
  // This fake answers print mode only after its input ends (one chat per run), so Claude Code's warm transport is off here.
  env: (home) => ({ CLAUDE_CONFIG_DIR: path.join(home, '.claude'), TOOLBRIDGE_CLAUDE_CODE_WARM: 'false' }),
  routes: [
    { argv: ['--version'], stdoutFile: capture('claude-version.out') },
    // No capture of a logged-out `claude auth status` exists; this is its documented shape (cli-facts.md).
    {
      argv: ['auth', 'status'],
      mode: 'logged_out',
      stdout: '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n',
      exitCode: 1,
    },
    { argv: ['auth', 'status'], stdoutFile: capture('claude-auth-status-apikey.out') },
    { argv: ['-p'], mode: 'logged_out', stdoutFile: capture('claude-p-stream.out'), exitCode: 1 },
    { argv: ['-p'], mode: 'hang', hang: true },
    { argv: ['-p'], mode: 'hang-tree', hang: true, child: true },
    { argv: ['-p'], stdoutFile: capture('claude-mock-stream.out') },
  ],
};
