import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, pathWith } from './fake-bin.js';

/** A throwaway HOME with a fake CLI first on PATH that records each of its runs. */
export interface FakeCliEnv<Run = RecordedRun> {
  env: NodeJS.ProcessEnv;
  home: string;
  /** The runs so far, as the fake recorded them (one JSON line each). */
  runs(): Promise<Run[]>;
  cleanup(): Promise<void>;
}

/** What a fake CLI records of each of its runs (`recordRun` in `FAKE_RUN_JS`). */
export interface RecordedRun {
  argv: string[];
  stdin: string;
  cwd: string;
  /** The variables the fake was told to keep. */
  env: Record<string, string | undefined>;
  /** Files in the run's scratch directory (and below it, by relative path) and their modes. */
  scratch: Record<string, number>;
  pid: number;
}

/** `install(binDir, recordFile, home)` writes the fake into `binDir`, recording each run as a JSON line in `recordFile`. */
export async function fakeCliEnv<Run = RecordedRun>(
  prefix: string,
  install: (binDir: string, recordFile: string, home: string) => Promise<unknown>,
): Promise<FakeCliEnv<Run>> {
  const tmp = await makeTempDir(prefix);
  const binDir = path.join(tmp.dir, 'bin');
  const home = path.join(tmp.dir, 'home');
  const recordFile = path.join(tmp.dir, 'runs.jsonl');
  await install(binDir, recordFile, home);
  return {
    env: { PATH: pathWith(binDir), HOME: home, TMPDIR: process.env.TMPDIR ?? '/tmp' },
    home,
    async runs() {
      const text = await readFile(recordFile, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Run);
    },
    cleanup: tmp.cleanup,
  };
}
