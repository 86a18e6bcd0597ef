import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, pathWith, replayScript, writeFakeBin } from '@toolbridge/test-suite/kit';
import { capture } from './captures.js';

type Replay = Parameters<typeof replayScript>[0];

/** What the fake does per subcommand: a replay of recorded output, or a raw script body. */
export type Behaviour = Replay | { raw: string };

export interface FakeOpenCodeSpec {
  version?: Behaviour;
  models?: Behaviour;
  authList?: Behaviour;
  run?: Behaviour;
}

export interface Invocation {
  argv: string[];
  cwd: string;
  pid: number;
  /** `OPENCODE_CONFIG_CONTENT` as the run saw it. */
  config?: string;
}

export interface FakeOpenCode {
  dir: string;
  binDir: string;
  /** PATH with the fake first, plus a throwaway HOME and XDG dirs. */
  env: NodeJS.ProcessEnv;
  /** Every invocation, in order. */
  invocations(): Promise<Invocation[]>;
  /** argv and stdin of the last `opencode run`. */
  lastRun(): Promise<{ argv: string[]; stdin: string }>;
  pids(): Promise<number[]>;
  cleanup(): Promise<void>;
}

/** Defaults replay the real 1.18.33 captures: version, model list, no credentials, a mock chat. */
export const DEFAULT_SPEC: Required<FakeOpenCodeSpec> = {
  version: { stdout: capture('opencode-version.out') },
  models: { stdout: capture('opencode-models.out') },
  authList: { stdout: capture('opencode-auth-list.out'), stderr: capture('opencode-auth-list.err') },
  run: { stdout: capture('oc-mock.out') },
};

function body(b: Behaviour, extra: Partial<Replay>): string {
  return 'raw' in b ? b.raw : replayScript({ ...b, ...extra });
}

/** A fake `opencode` executable that dispatches on its subcommand like the real one. */
export async function makeFakeOpenCode(spec: FakeOpenCodeSpec = {}): Promise<FakeOpenCode> {
  const tmp = await makeTempDir('toolbridge-fake-opencode-');
  const binDir = path.join(tmp.dir, 'bin');
  const log = path.join(tmp.dir, 'invocations.jsonl');
  const runRecord = path.join(tmp.dir, 'run.json');
  const pidFile = path.join(tmp.dir, 'pids');
  const s = { ...DEFAULT_SPEC, ...spec };
  const script = `
const __argv = process.argv.slice(2);
require('fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({ argv: __argv, cwd: process.cwd(), pid: process.pid, config: process.env.OPENCODE_CONFIG_CONTENT }) + '\\n');
if (__argv[0] === '--version') {
${body(s.version, {})}
} else if (__argv[0] === 'models') {
${body(s.models, {})}
} else if (__argv[0] === 'auth' && __argv[1] === 'list') {
${body(s.authList, {})}
} else if (__argv[0] === 'run') {
${body(s.run, { readStdinTo: runRecord, pidFile })}
} else {
  process.stderr.write('fake opencode: unexpected arguments ' + JSON.stringify(__argv) + '\\n');
  process.exitCode = 64;
}
`;
  await writeFakeBin(binDir, 'opencode', script);
  const home = path.join(tmp.dir, 'home');
  return {
    dir: tmp.dir,
    binDir,
    env: {
      PATH: pathWith(binDir),
      HOME: home,
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
      XDG_STATE_HOME: path.join(home, 'state'),
    },
    async invocations() {
      const text = await readFile(log, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Invocation);
    },
    async lastRun() {
      return JSON.parse(await readFile(runRecord, 'utf8')) as { argv: string[]; stdin: string };
    },
    async pids() {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return text.split('\n').filter(Boolean).map(Number);
    },
    cleanup: tmp.cleanup,
  };
}

/** One JSONL event line in the shape `opencode run --format json` prints. */
export function eventLine(type: string, part: Record<string, unknown>, sessionID = 'ses_test'): string {
  return JSON.stringify({ type, timestamp: 1795317935115, sessionID, part: { sessionID, messageID: 'msg_test', ...part } }) + '\n';
}

/** Fakes made by one test file, all removed by `cleanup()` (its `afterAll`). */
export function fakeOpenCodes(): { fake(spec?: FakeOpenCodeSpec): Promise<FakeOpenCode>; cleanup(): Promise<void> } {
  const made: FakeOpenCode[] = [];
  return {
    async fake(spec = {}) {
      const f = await makeFakeOpenCode(spec);
      made.push(f);
      return f;
    },
    async cleanup() {
      for (const f of made.splice(0)) await f.cleanup();
    },
  };
}
