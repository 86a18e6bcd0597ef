import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFakeBin } from '@toolbridge/test-suite';

/** Raw stdout captured from the real claude 2.1.330 (see captures/README.md). */
export const CAPTURES = fileURLToPath(new URL('./captures/', import.meta.url));

export function capture(name: string): string {
  return path.join(CAPTURES, name);
}

export async function captureText(name: string): Promise<string> {
  return readFile(capture(name), 'utf8');
}

/** How one subcommand of the fake behaves. `stdoutFile` is replayed byte for byte. */
export interface FakeReply {
  stdoutFile?: string;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  /** Never exit (after writing the output). */
  hang?: boolean;
  /** Pause between lines to show streaming. */
  delayMs?: number;
}

export interface FakeClaudeSpec {
  version?: FakeReply;
  authStatus?: FakeReply;
  login?: FakeReply;
  chat?: FakeReply;
  /** Every run appends `{argv, stdin, cwd, env}` as one JSON line here. */
  recordFile?: string;
  /** Every run appends its pid here. */
  pidFile?: string;
}

/**
 * A fake `claude` that answers `--version`, `auth status`, `auth login` and
 * `-p` chats from recorded captures. Written as a Node script into `binDir`.
 */
export async function writeFakeClaude(binDir: string, spec: FakeClaudeSpec): Promise<string> {
  const body = `
const fs = require('fs');
const spec = ${JSON.stringify(spec)};
const argv = process.argv.slice(2);
if (spec.pidFile) fs.appendFileSync(spec.pidFile, process.pid + '\\n');
let reply;
if (argv[0] === '--version' || argv[0] === '-v') reply = spec.version || { stdout: '2.1.330 (Claude Code)\\n' };
else if (argv[0] === 'auth' && argv[1] === 'status') reply = spec.authStatus || { stdout: '{"loggedIn": false, "authMethod": "none"}\\n', exitCode: 1 };
else if (argv[0] === 'auth' && argv[1] === 'login') reply = spec.login || { hang: true };
else if (argv.includes('-p')) reply = spec.chat || {};
else reply = { stderr: 'fake claude: unexpected arguments ' + JSON.stringify(argv) + '\\n', exitCode: 2 };
const run = async (input) => {
  if (spec.recordFile) {
    const env = {};
    for (const k of ['CLAUDE_CODE_MAX_RETRIES', 'TMPDIR', 'MAX_STRUCTURED_OUTPUT_RETRIES', 'IS_SANDBOX']) if (process.env[k] !== undefined) env[k] = process.env[k];
    const tmpdirMode = process.env.TMPDIR && fs.existsSync(process.env.TMPDIR) ? fs.statSync(process.env.TMPDIR).mode & 0o777 : undefined;
    const sp = argv.indexOf('--system-prompt-file') >= 0 ? argv[argv.indexOf('--system-prompt-file') + 1]
      : argv.indexOf('--append-system-prompt-file') >= 0 ? argv[argv.indexOf('--append-system-prompt-file') + 1] : undefined;
    let systemPrompt;
    if (sp) { systemPrompt = { text: fs.readFileSync(sp, 'utf8'), mode: fs.statSync(sp).mode & 0o777 }; }
    fs.appendFileSync(spec.recordFile, JSON.stringify({ argv, stdin: input, cwd: process.cwd(), env, tmpdirMode, systemPrompt }) + '\\n');
  }
  if (reply.stderr) process.stderr.write(reply.stderr);
  const out = reply.stdoutFile ? fs.readFileSync(reply.stdoutFile, 'utf8') : (reply.stdout || '');
  for (const l of out.split(/(?<=\\n)/)) {
    if (!l) continue;
    process.stdout.write(l);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
  }
  if (reply.hang) setInterval(() => {}, 1000);
  else process.exitCode = reply.exitCode || 0;
};
if (argv.includes('-p')) {
  let input = '';
  process.stdin.on('data', (c) => (input += c));
  process.stdin.on('end', () => run(input));
} else run(undefined);
`;
  return writeFakeBin(binDir, 'claude', body);
}

export interface RecordedRun {
  argv: string[];
  stdin?: string;
  cwd: string;
  env: { CLAUDE_CODE_MAX_RETRIES?: string; TMPDIR?: string; MAX_STRUCTURED_OUTPUT_RETRIES?: string; IS_SANDBOX?: string };
  /** Mode of `$TMPDIR` while the run ran (undefined when it did not exist). */
  tmpdirMode?: number;
  systemPrompt?: { text: string; mode: number };
}

/** The stream-json lines a run was sent on stdin. */
export function stdinLines(run: RecordedRun): Array<Record<string, any>> {
  return (run.stdin ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** The value after a flag in a run's argv (undefined when absent). */
export function flagOf(run: RecordedRun, name: string): string | undefined {
  const i = run.argv.indexOf(name);
  return i < 0 ? undefined : run.argv[i + 1];
}

export async function readRecords(file: string): Promise<RecordedRun[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RecordedRun);
}

export async function readPids(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}
