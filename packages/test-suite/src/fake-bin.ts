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
const opts = ${JSON.stringify(opts)};
if (opts.pidFile) fs.appendFileSync(opts.pidFile, process.pid + '\\n');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', async () => {
  if (opts.readStdinTo) fs.writeFileSync(opts.readStdinTo, JSON.stringify({ argv: process.argv.slice(2), stdin: input }));
  if (opts.stderr) process.stderr.write(opts.stderr);
  const lines = (opts.stdout || '').split(/(?<=\\n)/);
  for (const l of lines) {
    if (!l) continue;
    process.stdout.write(l);
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
  }
  if (opts.hang) setInterval(() => {}, 1000);
  else process.exitCode = opts.exitCode || 0;
});
`;
}
