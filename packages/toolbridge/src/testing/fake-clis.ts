import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFakeBin } from '@toolbridge/test-suite';

/** Raw stdout/stderr of the real CLIs (copied from the project's recordings, see shared/cli-facts.md). */
export const CAPTURES_DIR = fileURLToPath(new URL('./captures/', import.meta.url));

/** One answer of a fake CLI: argv prefix (and mode) → replayed output. */
interface Route {
  argv: string[];
  /** Only in this mode (default: any). */
  mode?: string;
  stdoutFile?: string;
  stderrFile?: string;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  /** Print the output, then never exit. */
  hang?: boolean;
}

const captures = (name: string) => path.join(CAPTURES_DIR, name);

/**
 * The three agent CLIs, replaying the real captures byte for byte. The mode
 * (`ok`, `logged_out`, `fail`, `hang`) is read from `<binDir>/<bin>.mode` on
 * every run, so a test can change a tool's state between calls.
 */
const ROUTES: Record<'codex' | 'claude' | 'opencode', Route[]> = {
  codex: [
    { argv: ['--version'], stdoutFile: captures('codex-version.out') },
    { argv: ['login', 'status'], mode: 'logged_out', stderrFile: captures('codex-login-status.err'), exitCode: 1 },
    { argv: ['login', 'status'], stderr: 'Logged in using ChatGPT\n' },
    { argv: ['exec'], mode: 'fail', stdoutFile: captures('codex-err.out'), stderrFile: captures('codex-err.err'), exitCode: 1 },
    { argv: ['exec'], mode: 'hang', stdout: '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n', hang: true },
    { argv: ['exec'], stdoutFile: captures('codex-mock.out'), stderrFile: captures('codex-mock.err') },
  ],
  claude: [
    { argv: ['--version'], stdoutFile: captures('claude-version.out') },
    // No capture of a logged-out `claude auth status` exists; this is its documented shape (cli-facts.md).
    { argv: ['auth', 'status'], mode: 'logged_out', stdout: '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n', exitCode: 1 },
    { argv: ['auth', 'status'], stdoutFile: captures('claude-auth-status-apikey.out') },
    { argv: ['-p'], mode: 'logged_out', stdoutFile: captures('claude-p-stream.out'), exitCode: 1 },
    { argv: ['-p'], mode: 'hang', hang: true },
    { argv: ['-p'], stdoutFile: captures('claude-mock-stream.out') },
  ],
  opencode: [
    { argv: ['--version'], stdoutFile: captures('opencode-version.out') },
    { argv: ['models'], stdoutFile: captures('opencode-models.out') },
    { argv: ['auth', 'list'], stdoutFile: captures('opencode-auth-list.out') },
    { argv: ['run'], mode: 'fail', stdoutFile: captures('oc-err.out'), stderrFile: captures('oc-err.err'), exitCode: 1 },
    { argv: ['run'], mode: 'hang', hang: true },
    { argv: ['run'], stdoutFile: captures('oc-mock.out') },
  ],
};

export type FakeCli = keyof typeof ROUTES;
export type FakeMode = 'ok' | 'logged_out' | 'fail' | 'hang';

function script(bin: string, binDir: string): string {
  const spec = { routes: ROUTES[bin as FakeCli], modeFile: path.join(binDir, `${bin}.mode`), logFile: path.join(binDir, `${bin}.log`) };
  return `
const fs = require('fs');
const spec = ${JSON.stringify(spec)};
const argv = process.argv.slice(2);
const mode = fs.existsSync(spec.modeFile) ? fs.readFileSync(spec.modeFile, 'utf8').trim() : 'ok';
const route = spec.routes.find((r) => r.argv.every((a, i) => argv[i] === a) && (!r.mode || r.mode === mode));
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  fs.appendFileSync(spec.logFile, JSON.stringify({ argv, mode, pid: process.pid, stdinBytes: Buffer.byteLength(input) }) + '\\n');
  if (!route) {
    process.stderr.write('fake: no route for ' + argv.join(' ') + '\\n');
    process.exitCode = 2;
    return;
  }
  if (route.stderrFile) process.stderr.write(fs.readFileSync(route.stderrFile));
  if (route.stderr) process.stderr.write(route.stderr);
  if (route.stdoutFile) process.stdout.write(fs.readFileSync(route.stdoutFile));
  if (route.stdout) process.stdout.write(route.stdout);
  if (route.hang) setInterval(() => {}, 1000);
  else process.exitCode = route.exitCode || 0;
});
`;
}

export interface FakeClis {
  binDir: string;
  setMode(bin: FakeCli, mode: FakeMode): Promise<void>;
  /** Every run of a fake so far: argv, mode, pid. */
  runs(bin: FakeCli): Promise<Array<{ argv: string[]; mode: string; pid: number; stdinBytes: number }>>;
}

/** Write fake `codex`, `claude` and `opencode` executables into `binDir` (put it first on PATH). */
export async function writeFakeClis(binDir: string, bins: readonly FakeCli[] = ['codex', 'claude', 'opencode']): Promise<FakeClis> {
  for (const bin of bins) await writeFakeBin(binDir, bin, script(bin, binDir));
  return {
    binDir,
    setMode: (bin, mode) => writeFile(path.join(binDir, `${bin}.mode`), mode),
    async runs(bin) {
      const text = await readFile(path.join(binDir, `${bin}.log`), 'utf8').catch(() => '');
      return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
  };
}
