import type { ToolbridgeError } from '@toolbridge/core';

/** What `spawnProcess` takes and gives: a tool run's options, its running handle and its result. */
export interface SpawnOptions {
  command: string;
  args?: readonly string[];
  /** Written to stdin, which is then closed. Prompts go here, never in argv. */
  stdin?: string;
  /**
   * Keep stdin open for `write()` (a long-lived tool speaking a protocol on stdio); `endInput()`
   * closes it. No total output cap applies (a warm process talks for hours), the line cap does.
   */
  interactive?: boolean;
  /**
   * Run the command under a guard that ends its whole process group when this process goes away,
   * even by SIGKILL (the guard sees its stdin close). For servers that do not exit on their own
   * when their parent dies (`opencode serve`). Implies `interactive`; the tool's own stdin is closed.
   */
  orphanGuard?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kills the process group when exceeded; the run then rejects with TimeoutError. */
  timeoutMs?: number;
  /** Kills the process group on abort; rejects with `signal.reason` when it is a ToolbridgeError, else AbortedError. */
  signal?: AbortSignal;
  /** Cap on total stdout bytes (default 32 MiB). */
  maxOutputBytes?: number;
  /** Cap on one stdout line (default 8 MiB). */
  maxLineBytes?: number;
  /** How much of stderr's end to keep (default 16 KiB). */
  stderrTailBytes?: number;
  /** SIGTERM, then SIGKILL after this many ms (default 2000). */
  killGraceMs?: number;
  /**
   * After the run, kill any process still carrying this run's `TOOLBRIDGE_RUN_ID`
   * (helpers a tool moved out of its process group). Default true; Linux only.
   */
  sweepStragglers?: boolean;
  /** Used in error messages and on errors. */
  toolId?: string;
  onStderr?: (text: string) => void;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last `stderrTailBytes` of stderr. */
  stderrTail: string;
  stdoutBytes: number;
  durationMs: number;
}

/** A running child: iterate it for stdout lines; `result` settles when it has exited. */
export interface RunningProcess extends AsyncIterable<string> {
  readonly pid: number | undefined;
  /** Resolves on exit (any exit code); rejects on timeout, abort, spawn failure or output cap. */
  readonly result: Promise<ProcessResult>;
  /** Kill the whole process group (SIGTERM, then SIGKILL). */
  kill(reason?: ToolbridgeError): void;
  /** Interactive runs: write to stdin, waiting while the pipe is full. Rejects once the process is gone. */
  write(text: string): Promise<void>;
  /** Interactive runs: close stdin (many tools then exit by themselves). */
  endInput(): void;
  /** Whether the process has exited (seen before its output is read to the end), or the run ended without one. */
  readonly exited: boolean;
}

export interface CollectedProcessResult extends ProcessResult {
  /** All stdout, lines joined with `\n`. */
  stdout: string;
}
