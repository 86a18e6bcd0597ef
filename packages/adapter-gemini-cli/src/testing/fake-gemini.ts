import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  capturesAt,
  FAKE_RUN_JS,
  fakeCliEnv,
  writeFakeBin,
  type CapturedReplay,
  type FakeCliEnv,
  type RecordedRun,
} from '@toolbridge/test-suite/kit';

/** Output of the real gemini 0.61.0, recorded byte for byte (see captures/README.md). */
const captures = capturesAt(import.meta.url);
export const CAPTURES_DIR = captures.dir;
export const { capture, recorded } = captures;

/** One run of the fake: what it prints, how it ends. */
export type Replay = CapturedReplay;

/** The real captures the tests replay. */
export const REPLAYS = {
  version: { stdout: capture('gemini-version.out') },
  ok: recorded('gemini-stdin-only'),
  slow: recorded('gemini-stdin-only', 0, { delayMs: 150 }),
  tools: recorded('gemini-tools-yolo'),
  toolsNotOffered: recorded('gemini-tools-default'),
  thoughts: recorded('gemini-thoughts'),
  unauthorized: recorded('gemini-err-401', 145),
  dailyQuota: recorded('gemini-err-429-daily', 173),
  /** Gemini retrying a 429 with the API's RetryInfo; the real run was killed while it waited. */
  retryingRateLimit: recorded('gemini-err-429-retryinfo', 0, { hang: true }),
  /** The stderr of a 500 it retried ten times; the run goes on waiting. */
  retryingServerError: { stdout: capture('gemini-err-hang.out'), stderr: capture('gemini-err-500.err'), hang: true },
  /** A model that never answers: the real stderr shows a failed attempt only after ~60 s, so the quiet start is replayed. */
  hang: { stdout: capture('gemini-err-hang.out'), stderr: capture('gemini-stdin-only.err'), hang: true },
  notSignedIn: recorded('gemini-noauth-stream', 41),
  emptyResponse: recorded('gemini-empty-response'),
  maxTurns: recorded('gemini-max-turns', 53),
  unknownSession: recorded('gemini-sessions-10-resume-unknown', 42),
  untrusted: recorded('gemini-untrusted', 55),
  networkDown: recorded('gemini-err-drop-max1', 1),
} satisfies Record<string, Replay>;

/** One chat run of the fake as it recorded itself: `scratch` holds the files in its TMPDIR (the call's scratch directory). */
export interface FakeRun extends RecordedRun {
  /** The `--admin-policy` file's text, read while the run was alive. */
  policy?: string;
}

/**
 * A fake `gemini`: `--version` prints the recorded version; anything else is a chat that reads
 * stdin to its end, records argv, stdin, cwd and the env it cares about, and replays `chat`.
 */
export async function writeFakeGemini(binDir: string, chat: Replay, recordFile: string): Promise<string> {
  const version = REPLAYS.version.stdout;
  return writeFakeBin(
    binDir,
    'gemini',
    `
const fs = require('fs');
const argv = process.argv.slice(2);
if (argv[0] === '--version') { process.stdout.write(${JSON.stringify(version)}); return; }
// The replays are of headless runs: ACP mode (the warm transport) is refused as by a CLI without it, so chats spawn.
if (argv[0] === '--acp') { process.stderr.write('Unknown argument: acp\\n'); process.exitCode = 2; return; }
${FAKE_RUN_JS}
const chat = ${JSON.stringify(chat)};
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const at = argv.indexOf('--admin-policy');
  const policy = at >= 0 ? fs.readFileSync(argv[at + 1], 'utf8') : undefined;
  const run = { ...recordRun(input, ['GEMINI_CLI_NO_RELAUNCH', 'TMPDIR', 'HOME'], process.env.TMPDIR), policy };
  fs.appendFileSync(${JSON.stringify(recordFile)}, JSON.stringify(run) + '\\n');
  replay(chat);
});
`,
  );
}

export type FakeGemini = FakeCliEnv<FakeRun>;

/** A throwaway HOME and a fake `gemini` first on PATH replaying `chat`. */
export function fakeGeminiEnv(chat: Replay): Promise<FakeGemini> {
  return fakeCliEnv<FakeRun>('toolbridge-gemini-test-', async (binDir, recordFile, home) => {
    await mkdir(path.join(home, '.gemini'), { recursive: true });
    await writeFakeGemini(binDir, chat, recordFile);
  });
}
