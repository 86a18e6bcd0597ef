import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, pathWithout, writeFakeBin } from './fake-bin.js';
import { processesWithEnv } from './processes.js';

/** What a fake CLI answers to one argv prefix (in one mode). */
export interface FakeRoute {
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

/**
 * A fake CLI, declared by its adapter package from that package's own recordings of the real
 * tool: the binary's name, its routes (first match wins), and the subcommands that do not read
 * stdin (probes, logins; a first argument, or the first two joined by a space, e.g. `--mode rpc`);
 * every other run reads its prompt from stdin until EOF, as agents do.
 */
export interface FakeCliDefinition {
  bin: string;
  routes: FakeRoute[];
  noStdin: string[];
  /** Variables the tool reads, pointed into the machine's HOME (e.g. `CODEX_HOME`). */
  env?: (home: string) => Record<string, string>;
  /** Files the tool keeps in HOME (e.g. a login it reads offline), by path relative to HOME. */
  homeFiles?: Record<string, string>;
}

/** A service a machine runs beside its CLIs (e.g. an in-test Ollama), with the env that points at it. */
export interface FakeService {
  env: Record<string, string>;
  close(): Promise<void>;
}

function script(cli: FakeCliDefinition, binDir: string): string {
  const spec = {
    routes: cli.routes,
    noStdin: cli.noStdin,
    modeFile: path.join(binDir, `${cli.bin}.mode`),
    logFile: path.join(binDir, `${cli.bin}.log`),
  };
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
if (spec.noStdin.includes(argv[0]) || spec.noStdin.includes(argv.slice(0, 2).join(' '))) run();
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
  /** Environment for a registry or bridge: PATH with only the fakes and Node, a fresh HOME, the services' variables. */
  env: NodeJS.ProcessEnv;
  /** Change how a fake CLI behaves from its next run on (`ok` and the modes its routes name). */
  setMode(bin: string, mode: string): Promise<void>;
  /** Every run of a fake so far. */
  runs(bin: string): Promise<FakeRun[]>;
  /** Pids of every process running with this machine's environment (fake tools and their children), now. */
  livePids(): number[];
  cleanup(): Promise<void>;
}

/**
 * A throwaway machine: the given fake CLIs first on PATH (replaying their adapters' recordings of
 * the real tools), a fresh HOME with the tools' config dirs, and the given services. The test kit
 * knows no tool: adapters declare their fakes, `toolbridge/testing` assembles the default machine.
 */
export async function makeFakeMachine(options: {
  clis: readonly FakeCliDefinition[];
  services?: readonly FakeService[];
}): Promise<FakeMachine> {
  const tmp = await makeTempDir('toolbridge-machine-');
  const binDir = path.join(tmp.dir, 'bin');
  const home = path.join(tmp.dir, 'home');
  await mkdir(home, { recursive: true });
  await mkdir(binDir, { recursive: true });
  for (const cli of options.clis) {
    await writeFakeBin(binDir, cli.bin, script(cli, binDir));
    for (const [rel, text] of Object.entries(cli.homeFiles ?? {})) {
      await mkdir(path.dirname(path.join(home, rel)), { recursive: true });
      await writeFile(path.join(home, rel), text);
    }
  }
  const env: NodeJS.ProcessEnv = {
    PATH: [binDir, pathWithout()].join(path.delimiter),
    HOME: home,
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TMPDIR: tmp.dir,
  };
  for (const cli of options.clis) Object.assign(env, cli.env?.(home));
  for (const s of options.services ?? []) Object.assign(env, s.env);
  return {
    env,
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
      for (const s of options.services ?? []) await s.close();
      await tmp.cleanup();
    },
  };
}
