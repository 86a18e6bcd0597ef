import { capturesAt, FAKE_RUN_JS, fakeCliEnv, writeFakeBin, type CapturedReplay, type FakeCliEnv } from '@toolbridge/test-suite/kit';

/** One run of the fake: what it prints, how it ends, the usage report it leaves. */
export interface Replay extends CapturedReplay {
  /** Written to the `--usage-output-file` path before exiting. */
  usage?: string;
}

/** Output of the real copilot 1.0.102, recorded byte for byte (see captures/README.md). */
const captures = capturesAt<Replay>(import.meta.url);
export const CAPTURES_DIR = captures.dir;
export const { capture, recorded } = captures;

/** The real captures the tests replay. */
export const REPLAYS = {
  version: { stdout: capture('copilot-version.out') },
  ok: recorded('copilot-ok', 0, { usage: capture('copilot-ok.usage.json') }),
  slow: recorded('copilot-ok', 0, { usage: capture('copilot-ok.usage.json'), delayMs: 100 }),
  toolsReadOnly: recorded('copilot-tools-read-only'),
  toolsWorkspaceWrite: recorded('copilot-tools-workspace-write'),
  toolsFull: recorded('copilot-tools-full'),
  thinking: recorded('copilot-thinking'),
  retriedThenOk: recorded('copilot-err-500-then-ok'),
  unauthorized: recorded('copilot-err-401', 1),
  rateLimited: recorded('copilot-err-429', 1),
  serverError: recorded('copilot-err-500', 1),
  hang: recorded('copilot-hang', 0, { hang: true }),
  notSignedIn: recorded('copilot-noauth', 1),
  tokenUnchecked: recorded('copilot-token-env', 1),
  noModel: recorded('copilot-no-model', 1),
  unknownSession: recorded('copilot-resume-unknown', 1),
  githubUnauthorized: recorded('copilot-login-6-chat-401', 1),
  /** The real run never exits after this rate limit. */
  weeklyLimit: recorded('copilot-login-7-chat-429-weekly', 0, { hang: true }),
  premiumQuota: recorded('copilot-login-8-chat-402-quota', 1),
  /** `copilot login`: the device code, then waiting for the user. */
  login: recorded('copilot-login-1-login', 0, {
    stdout: capture('copilot-login-1-login.out').split('Signed in')[0],
    hang: true,
  }),
} satisfies Record<string, Replay>;

/**
 * A fake `copilot`: `--version` prints the recorded version, `login` replays `login`; anything
 * else is a chat that reads stdin to its end, records itself and replays `chat`.
 */
export async function writeFakeCopilot(binDir: string, chat: Replay, recordFile: string, login: Replay = REPLAYS.login): Promise<string> {
  return writeFakeBin(
    binDir,
    'copilot',
    `
const fs = require('fs');
const path = require('path');
const argv = process.argv.slice(2);
if (argv[0] === '--version') { process.stdout.write(${JSON.stringify(REPLAYS.version.stdout)}); return; }
// The replays are of headless runs: ACP mode (the warm transport) is refused as by a CLI without it, so chats spawn.
if (argv[0] === '--acp') { process.stderr.write('error: unknown option --acp\\n'); process.exitCode = 1; return; }
${FAKE_RUN_JS}
const usage = argv.find((a) => a.startsWith('--usage-output-file='))?.slice('--usage-output-file='.length);
const record = (stdin) => {
  const run = recordRun(stdin, ['COPILOT_ALLOW_ALL', 'HOME'], usage && path.dirname(usage));
  fs.appendFileSync(${JSON.stringify(recordFile)}, JSON.stringify(run) + '\\n');
};
// The usage report goes to --usage-output-file after the output, before the exit.
const play = (r) => replay(r, () => usage && r.usage && fs.writeFileSync(usage, r.usage));
if (argv[0] === 'login') { record(''); play(${JSON.stringify(login)}); return; }
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => { record(input); play(${JSON.stringify(chat)}); });
`,
  );
}

/** The runs as the fake recorded them: `scratch` holds the files beside the usage report (the call's scratch directory). */
export type FakeCopilot = FakeCliEnv;

/** A throwaway HOME and a fake `copilot` first on PATH replaying `chat`. */
export function fakeCopilotEnv(chat: Replay, login?: Replay): Promise<FakeCopilot> {
  return fakeCliEnv('toolbridge-copilot-test-', (binDir, recordFile) => writeFakeCopilot(binDir, chat, recordFile, login));
}
