import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeCliDefinition } from '@toolbridge/test-suite/kit';
import { CAPTURES_DIR } from './fake-copilot.js';

const cap = (name: string) => path.join(CAPTURES_DIR, name);
// A chat is `copilot --output-format=json …` with the prompt on stdin; tokens come in its usage file.
const CHAT = ['--output-format=json'];
const USAGE_FILE = { flag: '--usage-output-file=', file: cap('copilot-ok.usage.json') };
const USER = { host: 'https://github.com', login: 'fake-user' };

/**
 * A fake `copilot` for whole-machine tests (library, bridge, dashboard): replays the real CLI's
 * recordings, signed in through its config file as after `copilot login`. Modes: `ok`,
 * `logged_out`, `fail` (a 429), `hang`, `hang-tree` (with a helper child), `slow`.
 */
export const fakeCopilotCli: FakeCliDefinition = {
  bin: 'copilot',
  // `--acp` (the warm transport) is refused as by a CLI without it: chats then spawn, as these recordings show.
  noStdin: ['--version', 'login', '--acp'],
  homeFiles: { '.copilot/config.json': JSON.stringify({ loggedInUsers: [USER], lastLoggedInUser: USER }) },
  routes: [
    { argv: ['--version'], stdoutFile: cap('copilot-version.out') },
    // The device flow up to "Waiting for authorization...", then it polls until the user is done.
    { argv: ['login'], stdout: readFileSync(cap('copilot-login-1-login.out'), 'utf8').split('Signed in')[0], hang: true },
    { argv: CHAT, mode: 'logged_out', stderrFile: cap('copilot-noauth.err'), exitCode: 1 },
    { argv: CHAT, mode: 'fail', stdoutFile: cap('copilot-err-429.out'), exitCode: 1 },
    { argv: CHAT, mode: 'hang', stdoutFile: cap('copilot-hang.out'), hang: true },
    { argv: CHAT, mode: 'hang-tree', stdoutFile: cap('copilot-hang.out'), hang: true, child: true },
    { argv: CHAT, mode: 'slow', stdoutFile: cap('copilot-ok.out'), delayMs: 100, argFile: USAGE_FILE },
    { argv: CHAT, stdoutFile: cap('copilot-ok.out'), argFile: USAGE_FILE },
  ],
};
