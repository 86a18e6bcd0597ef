import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, pathWith, replayScript, writeFakeBin } from '@toolbridge/test-suite/kit';

/** Output of the real codex 0.169.0, recorded byte for byte (copied from shared/cli-captures). */
export const CAPTURES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'captures');

export function capture(name: string): string {
  return readFileSync(path.join(CAPTURES_DIR, name), 'utf8');
}

export type Replay = Parameters<typeof replayScript>[0];

/** What the fake `codex` does for each subcommand; an absent entry exits 2 with a usage error. */
export interface FakeCodexScript {
  version?: Step;
  loginStatus?: Step;
  login?: Step;
  exec?: Step;
  /** `codex debug models`; absent: exits 2 like a Codex without the subcommand. */
  debugModels?: Step;
}

/** A replay, or raw JavaScript for behaviour a replay cannot show (CommonJS; `argv` holds the arguments). */
export type Step = Replay | { js: string };

/** The real captures, replayed byte for byte. */
export const REPLAYS = {
  version: { stdout: capture('codex-version.out'), stderr: capture('codex-version.err') },
  notLoggedIn: { stderr: capture('codex-login-status.err'), exitCode: 1 },
  loggedInChatGpt: {
    stderr: capture('codex-login-status.err').replace('Not logged in\n', 'Logged in using ChatGPT\n'),
    exitCode: 0,
  },
  login: { stderr: capture('codex-login-notty.err'), hang: true },
  /** `codex debug models` of the real 0.169.0, its fields cut to what discovery reads (the whole is 745 kB). */
  debugModels: { stdout: capture('codex-debug-models.json') },
  ok: { stdout: capture('codex-mock.out'), stderr: capture('codex-mock.err') },
  serverError: { stdout: capture('codex-err.out'), stderr: capture('codex-err.err'), exitCode: 1 },
  missingKey: { stdout: capture('codex-noenv.out'), stderr: capture('codex-noenv.err'), exitCode: 1 },
  /** Recorded against the mock server answering 401, 429 usage_limit_reached, 429 rate_limit_exceeded. */
  unauthorized: { stdout: capture('codex-mock401.out'), stderr: capture('codex-mock401.err'), exitCode: 1 },
  usageLimit: { stdout: capture('codex-mock429.out'), stderr: capture('codex-mock429.err'), exitCode: 1 },
  rateLimited: { stdout: capture('codex-mock429-ratelimit.out'), stderr: capture('codex-mock429-ratelimit.err'), exitCode: 1 },
  /** Offline: Codex reconnects forever. */
  reconnecting: { stdout: capture('codex-exec-json.out'), stderr: capture('codex-exec-json.err'), hang: true },
} satisfies Record<string, Replay>;

/** A failed turn on the captured preamble, for messages no capture holds. */
export function failedTurn(message: string): Replay {
  const lines = capture('codex-mock.out').split('\n').slice(0, 3);
  const m = JSON.stringify(message);
  lines.push(`{"type":"error","message":${m}}`, `{"type":"turn.failed","error":{"message":${m}}}`, '');
  return { stdout: lines.join('\n'), stderr: capture('codex-mock.err'), exitCode: 1 };
}

/** The `turn.failed` message of a captured run. */
export function failureMessage(captureName: string): string {
  for (const line of capture(captureName).split('\n')) {
    if (line.includes('"turn.failed"')) return JSON.parse(line).error.message;
  }
  throw new Error(`${captureName} has no turn.failed event`);
}

export const MESSAGES = {
  unauthorized: failureMessage('codex-mock401.out'),
  /** "… or try again at 5:19 AM." */
  usageLimit: failureMessage('codex-mock429.out'),
  /** A reset more than a day away, as the real CLI printed it against the mock. */
  usageLimitDated:
    'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Nov 25th, 2026 3:35 PM.',
  tooManyRequests: failureMessage('codex-mock429-ratelimit.out'),
};

function branch(name: string, step: Step | undefined): string {
  if (!step) return `{ process.stderr.write('error: unexpected ${name}\\n'); process.exitCode = 2; }`;
  if ('js' in step) return `{ ${step.js} }`;
  return `{ ${replayScript(step)} }`;
}

/** Write a fake `codex` into `binDir` that answers each subcommand as scripted. */
export async function writeFakeCodex(binDir: string, script: FakeCodexScript): Promise<string> {
  const body = `
const argv = process.argv.slice(2);
const which = argv[0] === '--version' ? 'version' : argv[0] === 'login' ? (argv[1] === 'status' ? 'loginStatus' : 'login') : argv[0] === 'exec' ? 'exec' : argv[0] === 'debug' && argv[1] === 'models' ? 'debugModels' : 'other';
if (which === 'version') ${branch('version', script.version)}
else if (which === 'loginStatus') ${branch('login status', script.loginStatus)}
else if (which === 'login') ${branch('login', script.login)}
else if (which === 'exec') ${branch('exec', script.exec)}
else if (which === 'debugModels') ${branch('debug models', script.debugModels)}
else { process.stderr.write('error: unexpected arguments ' + argv.join(' ') + '\\n'); process.exitCode = 2; }
`;
  return writeFakeBin(binDir, 'codex', body);
}

/** A throwaway HOME/CODEX_HOME and a bin dir with a fake `codex`, plus the env to use them. */
export async function fakeCodexEnv(script: FakeCodexScript): Promise<{
  dir: string;
  binDir: string;
  codexHome: string;
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}> {
  const tmp = await makeTempDir('toolbridge-codex-test-');
  const binDir = path.join(tmp.dir, 'bin');
  const codexHome = path.join(tmp.dir, 'home', '.codex');
  await writeFakeCodex(binDir, script);
  const env: NodeJS.ProcessEnv = {
    PATH: pathWith(binDir),
    HOME: path.join(tmp.dir, 'home'),
    CODEX_HOME: codexHome,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  return { dir: tmp.dir, binDir, codexHome, env, cleanup: tmp.cleanup };
}
