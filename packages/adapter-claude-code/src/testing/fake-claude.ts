import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFakeBin } from '@toolbridge/test-suite/kit';
import { fakeClaudeProgram } from './fake-claude-script.js';

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
  /** Print mode: answer at start, before reading any input (a refusal, a lost session). */
  atStart?: boolean;
}

export interface FakeClaudeSpec {
  version?: FakeReply;
  authStatus?: FakeReply;
  login?: FakeReply;
  chat?: FakeReply;
  /** Every run (print mode: every turn) appends `{argv, stdin, cwd, env, ...}` as one JSON line here. */
  recordFile?: string;
  /** Every run appends its pid here. */
  pidFile?: string;
  /** Answer `initialize` this much later (a slow start). */
  initDelayMs?: number;
  /** Exit at `initialize` (a process that cannot start). */
  initFails?: boolean;
  /** Leave an `interrupt` without effect (a turn that cannot be stopped). */
  ignoreInterrupt?: boolean;
  /**
   * Print mode: die (exit 1) at a turn after printing this many lines of its reply; with
   * `onceFile`, only while that file does not exist yet (the fake makes it as it dies).
   */
  crash?: { afterLines: number; onceFile?: string };
}

/**
 * A fake `claude` that answers `--version`, `auth status`, `auth login` and print-mode chats
 * (one-shot and warm, see `fake-claude-script.ts`) from recorded captures.
 */
export async function writeFakeClaude(binDir: string, spec: FakeClaudeSpec): Promise<string> {
  return writeFakeBin(binDir, 'claude', fakeClaudeProgram(JSON.stringify(spec)));
}

export interface RecordedRun {
  argv: string[];
  stdin?: string;
  cwd: string;
  env: { CLAUDE_CODE_MAX_RETRIES?: string; TMPDIR?: string; MAX_STRUCTURED_OUTPUT_RETRIES?: string; IS_SANDBOX?: string };
  /** Mode of `$TMPDIR` while the run ran (undefined when it did not exist). */
  tmpdirMode?: number;
  pid: number;
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
