import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, pathWithout, writeFakeBin } from './fake-bin.js';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from './fake-ollama.js';
import { processesWithEnv } from './processes.js';

/** Raw stdout/stderr of the real CLIs, recorded byte for byte (see captures/README.md). */
export const CAPTURES_DIR = fileURLToPath(new URL('../captures/', import.meta.url));

/** The text of one recording in CAPTURES_DIR. */
export function readCapture(name: string): Promise<string> {
  return readFile(path.join(CAPTURES_DIR, name), 'utf8');
}

const cap = (name: string) => path.join(CAPTURES_DIR, name);

interface Route {
  argv: string[];
  /** Only in this mode (default: any). */
  mode?: string;
  stdoutFile?: string;
  stderrFile?: string;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  /** Print, then never exit (a login server waiting for the browser, a stuck run). */
  hang?: boolean;
  /** Also start a child that never exits, in the same process group (a tool's helper). */
  child?: boolean;
  /** After stdout, print this line again and again, never exiting (a runaway tool). */
  floodLine?: string;
  /** Milliseconds between stdout lines. */
  delayMs?: number;
  /** A report the tool writes where its argv says (`<flag><path>`), e.g. Copilot's usage file: this file is copied there. */
  argFile?: { flag: string; file: string };
}

export type FakeCli = 'codex' | 'claude' | 'opencode' | 'gemini' | 'copilot';

/** Every fake CLI, in the order the default adapters list their tools. */
export const FAKE_CLIS: readonly FakeCli[] = ['codex', 'claude', 'opencode', 'gemini', 'copilot'];
/**
 * `ok`, logged out, a failing run, a run that never ends, one that never ends and has a
 * helper child, a slow (streaming) run, a run that prints without end.
 */
export type FakeMode = 'ok' | 'logged_out' | 'fail' | 'hang' | 'hang-tree' | 'slow' | 'flood';

const USAGE_FILE = { flag: '--usage-output-file=', file: cap('copilot-ok.usage.json') };

/** What each fake CLI answers, by argv prefix and the mode in `<bin>.mode`. */
const ROUTES: Record<FakeCli, Route[]> = {
  codex: [
    { argv: ['--version'], stdoutFile: cap('codex-version.out') },
    { argv: ['login', 'status'], mode: 'logged_out', stderrFile: cap('codex-login-status.err'), exitCode: 1 },
    { argv: ['login', 'status'], stderr: 'Logged in using ChatGPT\n' },
    { argv: ['login'], stderrFile: cap('codex-login-notty.err'), hang: true },
    { argv: ['exec'], mode: 'fail', stdoutFile: cap('codex-err.out'), stderrFile: cap('codex-err.err'), exitCode: 1 },
    { argv: ['exec'], mode: 'hang', stdout: '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n', hang: true },
    { argv: ['exec'], mode: 'hang-tree', stdout: '{"type":"thread.started","thread_id":"t"}\n', hang: true, child: true },
    {
      argv: ['exec'],
      mode: 'flood',
      stdout: '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n',
      floodLine: '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking..."}}\n',
    },
    { argv: ['exec'], mode: 'slow', stdoutFile: cap('codex-mock.out'), stderrFile: cap('codex-mock.err'), delayMs: 300 },
    { argv: ['exec'], stdoutFile: cap('codex-mock.out'), stderrFile: cap('codex-mock.err') },
  ],
  claude: [
    { argv: ['--version'], stdoutFile: cap('claude-version.out') },
    // No capture of a logged-out `claude auth status` exists; this is its documented shape (cli-facts.md).
    {
      argv: ['auth', 'status'],
      mode: 'logged_out',
      stdout: '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n',
      exitCode: 1,
    },
    { argv: ['auth', 'status'], stdoutFile: cap('claude-auth-status-apikey.out') },
    { argv: ['-p'], mode: 'logged_out', stdoutFile: cap('claude-p-stream.out'), exitCode: 1 },
    { argv: ['-p'], mode: 'hang', hang: true },
    { argv: ['-p'], mode: 'hang-tree', hang: true, child: true },
    { argv: ['-p'], stdoutFile: cap('claude-mock-stream.out') },
  ],
  opencode: [
    { argv: ['--version'], stdoutFile: cap('opencode-version.out') },
    { argv: ['models'], stdoutFile: cap('opencode-models.out') },
    { argv: ['auth', 'list'], stdoutFile: cap('opencode-auth-list.out') },
    { argv: ['run'], mode: 'fail', stdoutFile: cap('oc-err.out'), stderrFile: cap('oc-err.err'), exitCode: 1 },
    { argv: ['run'], mode: 'hang', hang: true },
    { argv: ['run'], mode: 'hang-tree', hang: true, child: true },
    { argv: ['run'], stdoutFile: cap('oc-mock.out') },
  ],
  // A chat is `gemini --output-format stream-json …` with the prompt on stdin.
  gemini: [
    { argv: ['--version'], stdoutFile: cap('gemini-version.out') },
    { argv: ['--output-format'], mode: 'logged_out', stderrFile: cap('gemini-noauth-stream.err'), exitCode: 41 },
    { argv: ['--output-format'], mode: 'fail', stdoutFile: cap('gemini-err-429-plain.out'), exitCode: 173 },
    { argv: ['--output-format'], mode: 'hang', stdoutFile: cap('gemini-err-hang.out'), hang: true },
    { argv: ['--output-format'], mode: 'hang-tree', stdoutFile: cap('gemini-err-hang.out'), hang: true, child: true },
    { argv: ['--output-format'], mode: 'slow', stdoutFile: cap('gemini-stdin-only.out'), delayMs: 300 },
    { argv: ['--output-format'], stdoutFile: cap('gemini-stdin-only.out') },
  ],
  // A chat is `copilot --output-format=json …` with the prompt on stdin; tokens come in its usage file.
  copilot: [
    { argv: ['--version'], stdoutFile: cap('copilot-version.out') },
    // The device flow up to "Waiting for authorization...", then it polls until the user is done.
    { argv: ['login'], stdout: readFileSync(cap('copilot-login-1-login.out'), 'utf8').split('Signed in')[0], hang: true },
    { argv: ['--output-format=json'], mode: 'logged_out', stderrFile: cap('copilot-noauth.err'), exitCode: 1 },
    { argv: ['--output-format=json'], mode: 'fail', stdoutFile: cap('copilot-err-429.out'), exitCode: 1 },
    { argv: ['--output-format=json'], mode: 'hang', stdoutFile: cap('copilot-hang.out'), hang: true },
    { argv: ['--output-format=json'], mode: 'hang-tree', stdoutFile: cap('copilot-hang.out'), hang: true, child: true },
    { argv: ['--output-format=json'], mode: 'slow', stdoutFile: cap('copilot-ok.out'), delayMs: 100, argFile: USAGE_FILE },
    { argv: ['--output-format=json'], stdoutFile: cap('copilot-ok.out'), argFile: USAGE_FILE },
  ],
};

function script(bin: FakeCli, binDir: string): string {
  const spec = { routes: ROUTES[bin], modeFile: path.join(binDir, `${bin}.mode`), logFile: path.join(binDir, `${bin}.log`) };
  return `
const fs = require('fs');
const spec = ${JSON.stringify(spec)};
const argv = process.argv.slice(2);
const mode = fs.existsSync(spec.modeFile) ? fs.readFileSync(spec.modeFile, 'utf8').trim() : 'ok';
const route = spec.routes.find((r) => r.argv.every((a, i) => argv[i] === a) && (!r.mode || r.mode === mode));
let input = '';
const run = async () => {
  fs.appendFileSync(spec.logFile, JSON.stringify({ argv, mode, pid: process.pid, stdin: input }) + '\\n');
  if (!route) { process.stderr.write('fake: no route for ' + argv.join(' ') + '\\n'); process.exitCode = 2; return; }
  if (route.stderrFile) process.stderr.write(fs.readFileSync(route.stderrFile));
  if (route.stderr) process.stderr.write(route.stderr);
  const out = route.stdoutFile ? fs.readFileSync(route.stdoutFile, 'utf8') : (route.stdout || '');
  for (const line of out.split(/(?<=\\n)/)) {
    if (!line) continue;
    process.stdout.write(line);
    if (route.delayMs) await new Promise((r) => setTimeout(r, route.delayMs));
  }
  const report = route.argFile && argv.find((a) => a.startsWith(route.argFile.flag));
  if (report) fs.copyFileSync(route.argFile.file, report.slice(route.argFile.flag.length));
  if (route.child) require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  if (route.floodLine) {
    const chunk = route.floodLine.repeat(256);
    const more = () => { while (process.stdout.write(chunk)); };
    process.stdout.on('drain', more);
    more();
  } else if (route.hang) setInterval(() => {}, 1000);
  else process.exitCode = route.exitCode || 0;
};
// Login and probe commands do not read stdin; agents read the prompt until EOF.
if (argv[0] === 'login' || argv[0] === '--version' || argv[0] === 'auth' || argv[0] === 'models') run();
else { process.stdin.on('data', (c) => (input += c)); process.stdin.on('end', run); }
`;
}

/** One run of a fake CLI, as it logged itself. */
export interface FakeRun {
  argv: string[];
  mode: string;
  pid: number;
  stdin: string;
}

export interface FakeMachine {
  /** Environment for a registry or bridge: PATH with only the fakes and Node, a fresh HOME, OLLAMA_HOST. */
  env: NodeJS.ProcessEnv;
  ollama: FakeOllama;
  /** Change how a fake CLI behaves from its next run on. */
  setMode(bin: FakeCli, mode: FakeMode): Promise<void>;
  /** Every run of a fake so far. */
  runs(bin: FakeCli): Promise<FakeRun[]>;
  /** Pids of every process running with this machine's environment (fake tools and their children), now. */
  livePids(): number[];
  cleanup(): Promise<void>;
}

/**
 * A throwaway machine with all six tools: fake `codex`, `claude`, `opencode`,
 * `gemini` and `copilot` first on PATH (replaying the real tools' recorded output),
 * a fresh HOME with the tools' config dirs in it (Gemini and Copilot signed in), and
 * an in-test Ollama server. Only the CLIs in `bins` are installed (default all five).
 */
export async function makeFakeMachine(options: { bins?: readonly FakeCli[]; ollama?: FakeOllamaOptions } = {}): Promise<FakeMachine> {
  const tmp = await makeTempDir('toolbridge-machine-');
  const binDir = path.join(tmp.dir, 'bin');
  const home = path.join(tmp.dir, 'home');
  await mkdir(home, { recursive: true });
  await mkdir(binDir, { recursive: true });
  for (const bin of options.bins ?? FAKE_CLIS) await writeFakeBin(binDir, bin, script(bin, binDir));
  // Gemini and Copilot keep their logins in files (read offline): signed in, as after `gemini` / `copilot login`.
  await mkdir(path.join(home, '.gemini'));
  await writeFile(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'oauth-personal' } } }));
  await writeFile(path.join(home, '.gemini', 'oauth_creds.json'), JSON.stringify({ access_token: 'fake', refresh_token: 'fake' }));
  await mkdir(path.join(home, '.copilot'));
  await writeFile(
    path.join(home, '.copilot', 'config.json'),
    JSON.stringify({
      loggedInUsers: [{ host: 'https://github.com', login: 'fake-user' }],
      lastLoggedInUser: { host: 'https://github.com', login: 'fake-user' },
    }),
  );
  const ollama = await startFakeOllama(options.ollama);
  const env: NodeJS.ProcessEnv = {
    PATH: [binDir, pathWithout()].join(path.delimiter),
    HOME: home,
    CODEX_HOME: path.join(home, '.codex'),
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TMPDIR: tmp.dir,
    OLLAMA_HOST: ollama.url,
  };
  return {
    env,
    ollama,
    setMode: (bin, mode) => writeFile(path.join(binDir, `${bin}.mode`), mode),
    livePids: () => processesWithEnv(`HOME=${home}`),
    async runs(bin) {
      const text = await readFile(path.join(binDir, `${bin}.log`), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as FakeRun);
    },
    async cleanup() {
      await ollama.close();
      await tmp.cleanup();
    },
  };
}
