import type { FakeCliDefinition } from '@toolbridge/test-suite/kit';
import { capturePath as capture } from './captures.js';

/**
 * A fake `opencode` for whole-machine tests: replays the real CLI's recordings. Modes: `ok`,
 * `fail` (the recorded 429), `hang`, `hang-tree` (with a helper child).
 */
export const fakeOpenCodeCli: FakeCliDefinition = {
  bin: 'opencode',
  noStdin: ['--version', 'auth', 'models', 'serve'],
  routes: [
    { argv: ['--version'], stdoutFile: capture('opencode-version.out') },
    { argv: ['models'], stdoutFile: capture('opencode-models.out') },
    { argv: ['auth', 'list'], stdoutFile: capture('opencode-auth-list.out') },
    // No `serve` (it fails at once), so every chat takes the spawn path; the warm transport is tested against the real CLI.
    { argv: ['serve'], stderr: 'fake opencode: no serve\n', exitCode: 1 },
    { argv: ['run'], mode: 'fail', stdoutFile: capture('oc-err.out'), stderrFile: capture('oc-err.err'), exitCode: 1 },
    { argv: ['run'], mode: 'hang', hang: true },
    { argv: ['run'], mode: 'hang-tree', hang: true, child: true },
    { argv: ['run'], stdoutFile: capture('oc-mock.out') },
  ],
};
