import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeCliDefinition } from '@toolbridge/test-suite/kit';

/** Recordings of the real `pi` 0.73.1 against the mock (the prompt "hi"; the cwd rewritten to /home/user/project). */
export const CAPTURES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'captures');
const cap = (name: string) => path.join(CAPTURES_DIR, name);
const JSON_MODE = ['--mode', 'json'];

/**
 * A fake `pi` for whole-machine tests (library, bridge, dashboard): replays the real CLI's
 * recordings of `--version` and `--list-models` (both on stderr) and of `--mode json` chats,
 * logged in with an API key in `~/.pi/agent/auth.json`. It cannot speak RPC: `--mode rpc` exits,
 * so the adapter's warm start fails once and chats run `--mode json`. Modes: `ok`, `logged_out`
 * (a 401), `fail` (a 429), `hang`, `hang-tree` (with a helper child), `slow`. Pi exits 0 on a
 * provider failure, as the recordings show.
 */
export const fakePiCli: FakeCliDefinition = {
  bin: 'pi',
  noStdin: ['--version', '--list-models', '--mode rpc'],
  homeFiles: { '.pi/agent/auth.json': JSON.stringify({ mock: { type: 'api_key', key: 'fake' } }) },
  routes: [
    { argv: ['--version'], stderrFile: cap('pi-version.err') },
    { argv: ['--list-models'], stderrFile: cap('pi-list-models.err') },
    { argv: ['--mode', 'rpc'], stderr: 'fake pi: no RPC mode\n', exitCode: 1 },
    { argv: JSON_MODE, mode: 'logged_out', stdoutFile: cap('pi-json-401.out') },
    { argv: JSON_MODE, mode: 'fail', stdoutFile: cap('pi-json-429.out') },
    { argv: JSON_MODE, mode: 'hang', stdoutFile: cap('pi-json-hang.out'), hang: true },
    { argv: JSON_MODE, mode: 'hang-tree', stdoutFile: cap('pi-json-hang.out'), hang: true, child: true },
    { argv: JSON_MODE, mode: 'slow', stdoutFile: cap('pi-json-ok.out'), delayMs: 30 },
    { argv: JSON_MODE, stdoutFile: cap('pi-json-ok.out') },
  ],
};
