import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, pathWithout, writeFakeBin } from '@toolbridge/test-suite';

/** Raw stdout/stderr of the real CLIs, copied from the project's recordings (shared/cli-captures). */
const CAPTURES = fileURLToPath(new URL('./captures/', import.meta.url));
const cap = (name: string) => path.join(CAPTURES, name);

interface Route {
  argv: string[];
  mode?: string;
  stdoutFile?: string;
  stderrFile?: string;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  /** Print, then never exit (a login server waiting for the browser, a stuck run). */
  hang?: boolean;
  /** Milliseconds between stdout lines. */
  delayMs?: number;
}

/** What each fake CLI answers, by argv prefix and the mode in `<bin>.mode`. */
const ROUTES: Record<FakeCli, Route[]> = {
  codex: [
    { argv: ['--version'], stdoutFile: cap('codex-version.out') },
    { argv: ['login', 'status'], mode: 'logged_out', stderrFile: cap('codex-login-status.err'), exitCode: 1 },
    { argv: ['login', 'status'], stderr: 'Logged in using ChatGPT\n' },
    { argv: ['login'], stderrFile: cap('codex-login-notty.err'), hang: true },
    { argv: ['exec'], mode: 'fail', stdoutFile: cap('codex-err.out'), stderrFile: cap('codex-err.err'), exitCode: 1 },
    { argv: ['exec'], mode: 'hang', stdout: '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n', hang: true },
    { argv: ['exec'], mode: 'slow', stdoutFile: cap('codex-mock.out'), stderrFile: cap('codex-mock.err'), delayMs: 300 },
    { argv: ['exec'], stdoutFile: cap('codex-mock.out'), stderrFile: cap('codex-mock.err') },
  ],
  claude: [
    { argv: ['--version'], stdoutFile: cap('claude-version.out') },
    // No capture of a logged-out `claude auth status` exists; this is its documented shape (cli-facts.md).
    { argv: ['auth', 'status'], mode: 'logged_out', stdout: '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n', exitCode: 1 },
    { argv: ['auth', 'status'], stdoutFile: cap('claude-auth-status-apikey.out') },
    { argv: ['-p'], mode: 'logged_out', stdoutFile: cap('claude-p-stream.out'), exitCode: 1 },
    { argv: ['-p'], mode: 'hang', hang: true },
    { argv: ['-p'], stdoutFile: cap('claude-mock-stream.out') },
  ],
  opencode: [
    { argv: ['--version'], stdoutFile: cap('opencode-version.out') },
    { argv: ['models'], stdoutFile: cap('opencode-models.out') },
    { argv: ['auth', 'list'], stdoutFile: cap('opencode-auth-list.out') },
    { argv: ['run'], mode: 'fail', stdoutFile: cap('oc-err.out'), stderrFile: cap('oc-err.err'), exitCode: 1 },
    { argv: ['run'], mode: 'hang', hang: true },
    { argv: ['run'], stdoutFile: cap('oc-mock.out') },
  ],
};

export type FakeCli = 'codex' | 'claude' | 'opencode';
export type FakeMode = 'ok' | 'logged_out' | 'fail' | 'hang' | 'slow';

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
  let out = route.stdoutFile ? fs.readFileSync(route.stdoutFile, 'utf8') : (route.stdout || '');
  for (const line of out.split(/(?<=\\n)/)) {
    if (!line) continue;
    process.stdout.write(line);
    if (route.delayMs) await new Promise((r) => setTimeout(r, route.delayMs));
  }
  if (route.hang) setInterval(() => {}, 1000);
  else process.exitCode = route.exitCode || 0;
};
// Login commands do not read stdin; agents read the prompt until EOF.
if (argv[0] === 'login' || argv[0] === '--version' || argv[0] === 'auth' || argv[0] === 'models') run();
else { process.stdin.on('data', (c) => (input += c)); process.stdin.on('end', run); }
`;
}

export interface Run {
  argv: string[];
  mode: string;
  pid: number;
  stdin: string;
}

export interface FakeMachine {
  env: NodeJS.ProcessEnv;
  ollama: FakeOllama;
  setMode(bin: FakeCli, mode: FakeMode): Promise<void>;
  runs(bin: FakeCli): Promise<Run[]>;
  cleanup(): Promise<void>;
}

/**
 * A throwaway machine: fake `codex`, `claude` and `opencode` first on PATH
 * (replaying the real tools' recorded output), a fresh HOME with the tools'
 * config dirs in it, and an in-test Ollama server.
 */
export async function makeFakeMachine(): Promise<FakeMachine> {
  const tmp = await makeTempDir('bridge-machine-');
  const binDir = path.join(tmp.dir, 'bin');
  const home = path.join(tmp.dir, 'home');
  await mkdir(home, { recursive: true });
  for (const bin of ['codex', 'claude', 'opencode'] as const) await writeFakeBin(binDir, bin, script(bin, binDir));
  const ollama = await startFakeOllama();
  const env: NodeJS.ProcessEnv = {
    PATH: [binDir, pathWithout()].join(path.delimiter),
    HOME: home,
    CODEX_HOME: path.join(home, '.codex'),
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    TMPDIR: tmp.dir,
    OLLAMA_HOST: ollama.url,
  };
  return {
    env,
    ollama,
    setMode: (bin, mode) => writeFile(path.join(binDir, `${bin}.mode`), mode),
    async runs(bin) {
      const text = await readFile(path.join(binDir, `${bin}.log`), 'utf8').catch(() => '');
      return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Run);
    },
    async cleanup() {
      await ollama.close();
      await tmp.cleanup();
    },
  };
}

export interface FakeOllama {
  url: string;
  chats: Array<{ model: string; messages: Array<{ role: string; content: string }>; stream?: boolean }>;
  close(): Promise<void>;
}

/** The parts of Ollama's API the adapter uses: `/api/version`, `/api/tags`, NDJSON `/api/chat`. */
export async function startFakeOllama(options: { models?: string[]; reply?: string } = {}): Promise<FakeOllama> {
  const models = options.models ?? ['llama3.2:1b', 'qwen3:14b'];
  const reply = options.reply ?? 'Hello from ollama';
  const chats: FakeOllama['chats'] = [];
  const readBody = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text ? (JSON.parse(text) as FakeOllama['chats'][number]) : undefined;
  };
  const server = createServer(async (req, res) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'GET' && req.url === '/api/version') return json(200, { version: '0.9.0' });
    if (req.method === 'GET' && req.url === '/api/tags') return json(200, { models: models.map((name) => ({ name, model: name, size: 1000, details: { family: 'llama' } })) });
    if (req.method === 'POST' && req.url === '/api/chat') {
      const request = (await readBody(req))!;
      chats.push(request);
      if (!models.includes(request.model)) return json(404, { error: `model "${request.model}" not found, try pulling it first` });
      const created_at = new Date().toISOString();
      const words = reply.split(/(?<= )/);
      const final = { model: request.model, created_at, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration: 1000, prompt_eval_count: 7, eval_count: words.length };
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (request.stream === false) {
        res.end(JSON.stringify({ ...final, message: { role: 'assistant', content: reply } }) + '\n');
        return;
      }
      for (const w of words) res.write(JSON.stringify({ model: request.model, created_at, message: { role: 'assistant', content: w }, done: false }) + '\n');
      res.end(JSON.stringify(final) + '\n');
      return;
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
