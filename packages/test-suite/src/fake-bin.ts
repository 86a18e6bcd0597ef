import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A throwaway directory, removed by `cleanup()`. */
export async function makeTempDir(prefix = 'toolbridge-test-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Write an executable Node script named `name` into `binDir`. Put `binDir`
 * first on PATH (see `pathWith`) and the adapter will run it instead of the
 * real tool. The script body is plain JavaScript (CommonJS, `require` works).
 */
export async function writeFakeBin(binDir: string, name: string, body: string): Promise<string> {
  await mkdir(binDir, { recursive: true });
  const file = path.join(binDir, name);
  await writeFile(file, `#!${process.execPath}\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** PATH with `dirs` in front of the current PATH. */
export function pathWith(...dirs: string[]): string {
  return [...dirs, process.env.PATH ?? ''].join(path.delimiter);
}

/** PATH with only the directories that hold Node (so a tool under test is certainly "not installed"). */
export function pathWithout(): string {
  return path.dirname(process.execPath);
}

/**
 * JavaScript for a fake CLI's body, defining what every fake that replays a recorded run does:
 * `replay(r, beforeEnd)` writes `r.stderr`, then `r.stdout` line by line (`r.delayMs` between
 * lines), calls `beforeEnd` (files a run leaves behind), then exits with `r.exitCode`, or never
 * with `r.hang`; `recordRun(stdin, envKeys, scratchDir)` is the `RecordedRun` of this run.
 */
export const FAKE_RUN_JS = `
async function replay(r, beforeEnd) {
  if (r.stderr) process.stderr.write(r.stderr);
  for (const line of (r.stdout || '').split(/(?<=\\n)/)) {
    if (!line) continue;
    process.stdout.write(line);
    if (r.delayMs) await new Promise((res) => setTimeout(res, r.delayMs));
  }
  if (beforeEnd) beforeEnd();
  if (r.hang) setInterval(() => {}, 1000);
  else process.exitCode = r.exitCode || 0;
}
function recordRun(stdin, envKeys, scratchDir) {
  const fs = require('fs');
  const env = {};
  for (const k of envKeys) env[k] = process.env[k];
  const scratch = {};
  if (scratchDir) for (const name of fs.readdirSync(scratchDir, { recursive: true })) scratch[name] = fs.statSync(scratchDir + '/' + name).mode & 0o777;
  return { argv: process.argv.slice(2), stdin, cwd: process.cwd(), env, scratch, pid: process.pid };
}
`;

/**
 * JavaScript for a fake CLI that replays `stdout`/`stderr` text and exits
 * with `exitCode`. `delayMs` between lines shows streaming; `hang: true`
 * never exits. When `pidFile` is set the fake appends its pid there.
 */
export function replayScript(opts: {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  delayMs?: number;
  hang?: boolean;
  readStdinTo?: string;
  pidFile?: string;
}): string {
  return `
const fs = require('fs');
${FAKE_RUN_JS}
const opts = ${JSON.stringify(opts)};
if (opts.pidFile) fs.appendFileSync(opts.pidFile, process.pid + '\\n');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  if (opts.readStdinTo) fs.writeFileSync(opts.readStdinTo, JSON.stringify({ argv: process.argv.slice(2), stdin: input }));
  replay(opts);
});
`;
}
