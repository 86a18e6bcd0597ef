import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeCliDefinition } from '@toolbridge/test-suite/kit';
import { node22Binary } from '../../../../scripts/node22.mjs';

/** The real qwen 0.24.4's output against the mock (recorded by hand; see the README's Testing section). */
export const CAPTURES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'captures');
const cap = (name: string) => path.join(CAPTURES_DIR, name);
// A chat is `qwen --output-format stream-json …` with the prompt on stdin.
const CHAT = ['--output-format'];

/**
 * A fake `qwen` for whole-machine tests (library, bridge, dashboard): replays the real CLI's
 * recordings, signed in with an OpenAI key in its settings. The adapter still needs a Node >= 22
 * to run it with: the pinned one (`TOOLBRIDGE_QWEN_NODE`). Modes: `ok`, `logged_out` (a 401),
 * `fail` (a 429 after Qwen Code's seven attempts), `hang`, `hang-tree` (with a helper child), `slow`.
 */
export const fakeQwenCli: FakeCliDefinition = {
  bin: 'qwen',
  // No warm mode: a warm start (`--input-format stream-json …`) finds no route and exits at once, so chats spawn.
  noStdin: ['--version', '--input-format'],
  env: (): Record<string, string> => {
    const node = node22Binary();
    return node ? { TOOLBRIDGE_QWEN_NODE: node } : {};
  },
  homeFiles: {
    '.qwen/settings.json': JSON.stringify({
      security: { auth: { selectedType: 'openai', apiKey: 'fake' } },
      model: { name: 'mock-model' },
    }),
  },
  routes: [
    { argv: ['--version'], stdoutFile: cap('qwen-version.out') },
    { argv: CHAT, mode: 'logged_out', stdoutFile: cap('qwen-err-401.out'), exitCode: 1 },
    { argv: CHAT, mode: 'fail', stdoutFile: cap('qwen-err-429.out'), exitCode: 1 },
    { argv: CHAT, mode: 'hang', stdoutFile: cap('qwen-hang.out'), hang: true },
    { argv: CHAT, mode: 'hang-tree', stdoutFile: cap('qwen-hang.out'), hang: true, child: true },
    { argv: CHAT, mode: 'slow', stdoutFile: cap('qwen-chat.out'), delayMs: 30 },
    { argv: CHAT, stdoutFile: cap('qwen-chat.out') },
  ],
};
