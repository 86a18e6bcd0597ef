import path from 'node:path';
import type { FakeCliDefinition } from '@toolbridge/test-suite/kit';
import { CAPTURES_DIR } from './fake-gemini.js';

const cap = (name: string) => path.join(CAPTURES_DIR, name);
// A chat is `gemini --output-format stream-json …` with the prompt on stdin.
const CHAT = ['--output-format'];

/**
 * A fake `gemini` for whole-machine tests (library, bridge, dashboard): replays the real CLI's
 * recordings, signed in through its files as after an OAuth login. Modes: `ok`, `logged_out`,
 * `fail` (a 429 after Gemini's ten attempts), `hang`, `hang-tree` (with a helper child), `slow`.
 */
export const fakeGeminiCli: FakeCliDefinition = {
  bin: 'gemini',
  // `--acp` (the warm transport) is refused as by a CLI without it: chats then spawn, as these recordings show.
  noStdin: ['--version', '--acp'],
  homeFiles: {
    '.gemini/settings.json': JSON.stringify({ security: { auth: { selectedType: 'oauth-personal' } } }),
    '.gemini/oauth_creds.json': JSON.stringify({ access_token: 'fake', refresh_token: 'fake' }),
  },
  routes: [
    { argv: ['--version'], stdoutFile: cap('gemini-version.out') },
    { argv: CHAT, mode: 'logged_out', stderrFile: cap('gemini-noauth-stream.err'), exitCode: 41 },
    { argv: CHAT, mode: 'fail', stdoutFile: cap('gemini-err-429-plain.out'), exitCode: 173 },
    { argv: CHAT, mode: 'hang', stdoutFile: cap('gemini-err-hang.out'), hang: true },
    { argv: CHAT, mode: 'hang-tree', stdoutFile: cap('gemini-err-hang.out'), hang: true, child: true },
    { argv: CHAT, mode: 'slow', stdoutFile: cap('gemini-stdin-only.out'), delayMs: 300 },
    { argv: CHAT, stdoutFile: cap('gemini-stdin-only.out') },
  ],
};
