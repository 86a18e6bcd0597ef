import { spawn as crossSpawn } from 'cross-spawn';
import type { ChildProcess } from 'node:child_process';
import { spawn as nodeSpawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { readySpawner, SPAWNER_GONE, type SpawnedChild } from './spawner.js';
import { killMarkedSync, killStragglers, newRunMarker, RUN_MARKER_ENV } from './stragglers.js';
import { AbortedError, ProviderExecutionError, TimeoutError, ToolUnavailableError, ToolbridgeError } from '@toolbridge/core';

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

/** Set (with ELECTRON_RUN_AS_NODE) when the guard runs on Electron's binary; the guard removes both. */
const GUARD_AS_NODE = 'TOOLBRIDGE_GUARD_AS_NODE';

/** Run as `node -e ORPHAN_GUARD <command> <args...>` (see `orphanGuard`). */
const ORPHAN_GUARD = `
const { spawn } = require('child_process');
const [cmd, ...args] = process.argv.slice(1);
const env = { ...process.env };
if (env.${GUARD_AS_NODE}) { delete env.${GUARD_AS_NODE}; delete env.ELECTRON_RUN_AS_NODE; }
const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
child.on('error', (e) => { process.stderr.write('toolbridge-guard: ' + e.code + '\\n'); process.exit(127); });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
const endGroup = () => {
  try { process.kill(-process.pid, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
  setTimeout(() => { try { process.kill(-process.pid, 'SIGKILL'); } catch {} }, 2000).unref();
};
process.stdin.on('end', endGroup);
process.stdin.on('error', endGroup);
process.stdin.resume();
`;

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
  /** Whether the process has exited. */
  readonly exited: boolean;
}

const liveGroups = new Set<number>();
/** Run markers of runs not yet swept (see stragglers.ts). */
const liveMarkers = new Set<string>();
let exitHookInstalled = false;

function killEverythingSync(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  killMarkedSync(liveMarkers);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last line of defence: never leave a tool's process tree behind when this process exits.
  process.once('exit', killEverythingSync);
  // Dying by a signal skips 'exit', and tools run in process groups of their own, so a
  // terminal's Ctrl+C does not reach them. When nobody else handles the signal, end the
  // tools, then die by it as if this listener were not there.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(sig) > 1) return; // the app owns shutdown; 'exit' still cleans up
      killEverythingSync();
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  if (process.platform === 'win32') {
    try {
      nodeSpawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
      return true;
    } catch {
      return false;
    }
  }
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

function groupAlive(pid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Number of child process groups this process currently runs (for diagnostics and tests). */
export function liveProcessGroupCount(): number {
  return liveGroups.size;
}

/**
 * Spawn a tool without a shell in its own process group, feed stdin, and
 * stream stdout line by line. Timeouts, aborts and early `break`s from the
 * iteration kill the whole group so no descendant survives.
 */
export function spawnProcess(options: SpawnOptions): RunningProcess {
  const {
    command,
    args = [],
    timeoutMs,
    signal,
    maxOutputBytes = options.interactive || options.orphanGuard ? Infinity : 32 * 1024 * 1024,
    maxLineBytes = 8 * 1024 * 1024,
    stderrTailBytes = 16 * 1024,
    killGraceMs = 2000,
    toolId,
    sweepStragglers = true,
  } = options;
  const marker = sweepStragglers ? newRunMarker() : undefined;
  const label = toolId ?? command;
  const started = performance.now();

  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let streamDone = false;
  let failure: ToolbridgeError | undefined;
  let stdoutBytes = 0;
  let partial = '';
  let stderrTail = '';
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  let finished = false;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  let proc: SpawnedChild | ChildProcess | undefined;
  const decoder = new StringDecoder('utf8');
  const stderrDecoder = new StringDecoder('utf8');
  let exitCode: number | null = null;
  let exitSignal: NodeJS.Signals | null = null;
  let resolveResult!: (r: ProcessResult) => void;
  let rejectResult!: (e: unknown) => void;
  const result = new Promise<ProcessResult>((res, rej) => {
    resolveResult = res;
    rejectResult = rej;
  });
  // The iterator reports failures too; an unobserved `result` must not crash the process.
  result.catch(() => {});

  const terminate = (reason: ToolbridgeError) => {
    if (finished) return;
    if (!failure) failure = reason;
    const pid = proc?.pid;
    if (pid === undefined) {
      // Still being started by the spawner: it is ended as soon as it arrives (see attach), and
      // the run does not wait for it past the kill grace.
      if (!killTimer) {
        killTimer = setTimeout(() => settleEarly(), killGraceMs + 1000);
        killTimer.unref();
      }
      return;
    }
    signalGroup(pid, 'SIGTERM');
    if (!killTimer) {
      killTimer = setTimeout(() => {
        if (groupAlive(pid) || !exited) signalGroup(pid, 'SIGKILL');
      }, killGraceMs);
      killTimer.unref();
    }
  };

  const cancelled = () => {
    const reason = signal?.reason;
    return ToolbridgeError.isInstance(reason) ? reason : new AbortedError(`${label} was cancelled`, { toolId });
  };
  const onAbort = () => terminate(cancelled());

  /** A run that ends before it has a process (cancelled first, failed to start). */
  function settleEarly(reason?: ToolbridgeError) {
    if (finished || streamDone) return;
    if (reason && !failure) failure = reason;
    streamDone = true;
    if (deadline) clearTimeout(deadline);
    signal?.removeEventListener('abort', onAbort);
    rejectResult(failure);
    notify();
  }

  if (signal?.aborted) {
    // Cancelled before it started: nothing is spawned and the prompt goes nowhere.
    settleEarly(cancelled());
    return handle();
  }

  signal?.addEventListener('abort', onAbort, { once: true });
  if (timeoutMs !== undefined && timeoutMs > 0) {
    deadline = setTimeout(
      () => terminate(new TimeoutError(`${label} did not finish within ${timeoutMs} ms`, { toolId, timeoutMs })),
      timeoutMs,
    );
  }

  // The guard is this process's stand-in inside the tool's process group: when its stdin closes
  // (we exited, even by SIGKILL, and the kernel closed the pipe) it ends the whole group.
  const [file, argv] = options.orphanGuard ? [process.execPath, ['-e', ORPHAN_GUARD, command, ...args]] : [command, [...args]];
  const toolEnv = marker ? { ...(options.env ?? process.env), [RUN_MARKER_ENV]: marker } : (options.env ?? process.env);
  // In Electron, process.execPath is the app: the guard must be told to run as Node (and not pass that on).
  const env = options.orphanGuard && process.versions.electron ? { ...toolEnv, ELECTRON_RUN_AS_NODE: '1', [GUARD_AS_NODE]: '1' } : toolEnv;
  // Short runs start from the spawner (see spawner.ts); long-lived ones, which gain nothing, directly.
  const spawner = options.interactive || options.orphanGuard ? undefined : readySpawner();
  if (spawner) {
    spawner.spawn(file, argv, { cwd: options.cwd, env, stdin: options.stdin }).then(attach, (e: NodeJS.ErrnoException) => {
      // The helper itself went away before it started the tool: start it here instead.
      if (e.code === SPAWNER_GONE && !failure) spawnDirect();
      else settleEarly(spawnFailure(e, command, toolId));
    });
  } else spawnDirect();
  return handle();

  function spawnDirect() {
    try {
      attach(
        crossSpawn(file, argv, {
          cwd: options.cwd,
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: process.platform !== 'win32',
          windowsHide: true,
        }),
      );
    } catch (e) {
      settleEarly(spawnFailure(e as NodeJS.ErrnoException, command, toolId));
    }
  }

  function attach(started: SpawnedChild | ChildProcess) {
    if (streamDone) {
      // Arrived after the run gave up on it: end it and let its pipes go.
      if (started.pid !== undefined) signalGroup(started.pid, 'SIGKILL');
      for (const s of [started.stdin, started.stdout, started.stderr]) s?.destroy();
      return;
    }
    if (killTimer) clearTimeout(killTimer);
    killTimer = undefined;
    proc = started;
    const child = started;
    // Cancelled or timed out while the spawner was starting it: end it at once.
    if (failure) queueMicrotask(() => terminate(failure!));
    installExitHook();
    if (child.pid !== undefined) liveGroups.add(child.pid);
    if (marker) liveMarkers.add(marker);

    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'EACCES') {
        failure ??= spawnFailure(e, command, toolId);
      } else {
        failure ??= new ProviderExecutionError(`${label} could not be run: ${e.message}`, { toolId, cause: e });
      }
      finish(null, null);
    });

    // EPIPE when the tool exits without reading its input is not our failure; the exit code tells.
    child.stdin?.on('error', () => {});
    if (options.interactive || options.orphanGuard) {
      if (options.stdin !== undefined) child.stdin?.write(options.stdin);
    } else if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    else child.stdin?.end();

    child.stdout?.on('data', (chunk: Buffer) => {
      // Once the run has failed (timeout, abort, a cap), nothing more of its output is used.
      if (failure) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxOutputBytes) {
        terminate(new ProviderExecutionError(`${label} produced more than ${maxOutputBytes} bytes of output`, { toolId }));
        return;
      }
      partial += decoder.write(chunk);
      let nl: number;
      while ((nl = partial.indexOf('\n')) >= 0) {
        const line = partial.slice(0, nl).replace(/\r$/, '');
        partial = partial.slice(nl + 1);
        lines.push(line);
      }
      if (Buffer.byteLength(partial) > maxLineBytes) {
        terminate(new ProviderExecutionError(`${label} wrote a line longer than ${maxLineBytes} bytes`, { toolId }));
        partial = '';
      }
      notify();
    });

    child.stderr?.on('data', (chunk: Buffer) => {
      const text = stderrDecoder.write(chunk);
      options.onStderr?.(text);
      stderrTail = (stderrTail + text).slice(-stderrTailBytes);
    });

    child.on('exit', (code, sig) => {
      exited = true;
      exitCode = code;
      exitSignal = sig;
      // Descendants left running by the tool hold our pipes open; end them too.
      if (child.pid !== undefined && groupAlive(child.pid)) {
        signalGroup(child.pid, 'SIGTERM');
        const t = setTimeout(() => {
          if (child.pid !== undefined && groupAlive(child.pid)) signalGroup(child.pid, 'SIGKILL');
        }, killGraceMs);
        t.unref();
      }
      // If pipes still do not close, do not wait forever.
      const t = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(exitCode, exitSignal);
      }, killGraceMs + 1000);
      t.unref();
    });
    child.on('close', (code: number | null, sig: NodeJS.Signals | null) => finish(code ?? exitCode, sig ?? exitSignal));
  }

  function finish(code: number | null, sig: NodeJS.Signals | null) {
    if (finished) return;
    finished = true;
    const rest = partial + decoder.end();
    if (rest.length > 0 && !failure) lines.push(rest.replace(/\r$/, ''));
    partial = '';
    if (deadline) clearTimeout(deadline);
    signal?.removeEventListener('abort', onAbort);
    if (proc?.pid !== undefined) {
      const pid = proc.pid;
      if (!groupAlive(pid)) {
        liveGroups.delete(pid);
        if (killTimer) clearTimeout(killTimer);
      } else {
        // Keep tracking until the SIGKILL escalation has run.
        setTimeout(() => liveGroups.delete(pid), killGraceMs + 100).unref();
      }
    }
    stderrTail += stderrDecoder.end();
    if (options.orphanGuard && code === 127 && /toolbridge-guard: (ENOENT|EACCES)/.test(stderrTail) && !failure) {
      failure = spawnFailure(
        Object.assign(new Error(stderrTail), { code: /EACCES/.test(stderrTail) ? 'EACCES' : 'ENOENT' }),
        command,
        toolId,
      );
    }
    const settle = () => {
      streamDone = true;
      const durationMs = Math.round(performance.now() - started);
      if (failure) rejectResult(failure);
      else resolveResult({ exitCode: code, signal: sig, stderrTail, stdoutBytes, durationMs });
      notify();
    };
    // The run is over only when nothing of it is left running.
    if (marker) {
      // A run of less than a minute cannot have seen pids wrap round and past its first one.
      const fromPid = performance.now() - started < 60_000 ? proc?.pid : undefined;
      void killStragglers(marker, undefined, fromPid)
        .catch(() => [])
        .then(() => {
          liveMarkers.delete(marker);
          settle();
        });
    } else settle();
  }

  function handle(): RunningProcess {
    return {
      get pid() {
        return proc?.pid;
      },
      result,
      kill(reason) {
        terminate(reason ?? new AbortedError(`${label} was stopped`, { toolId }));
      },
      get exited() {
        // Its exit, seen before its output has been read to the end; or a run that never had a process.
        return exited || streamDone;
      },
      write(text) {
        const stdin = proc?.stdin;
        if (!stdin || stdin.destroyed || stdin.writableEnded || streamDone) {
          return Promise.reject(failure ?? new ProviderExecutionError(`${label} is no longer running`, { toolId }));
        }
        return new Promise<void>((resolve, reject) => {
          const ok = stdin.write(text, (e) =>
            e ? reject(failure ?? new ProviderExecutionError(`${label} stopped reading its input`, { toolId })) : undefined,
          );
          if (ok) resolve();
          else stdin.once('drain', () => resolve());
        });
      },
      endInput() {
        proc?.stdin?.end();
      },
      [Symbol.asyncIterator](): AsyncIterator<string> {
        return {
          async next(): Promise<IteratorResult<string>> {
            for (;;) {
              if (failure && streamDone) throw failure;
              if (lines.length > 0) return { value: lines.shift()!, done: false };
              if (streamDone) {
                if (failure) throw failure;
                return { value: undefined, done: true };
              }
              await new Promise<void>((r) => (wake = r));
            }
          },
          async return(): Promise<IteratorResult<string>> {
            // The consumer stopped early (break, thrown error): the tool must not keep running.
            if (!streamDone) terminate(new AbortedError(`${label} was stopped by its consumer`, { toolId }));
            return { value: undefined, done: true };
          },
        };
      },
    };
  }
}

function spawnFailure(e: NodeJS.ErrnoException, command: string, toolId?: string): ToolbridgeError {
  if (e.code === 'ENOENT') {
    return new ToolUnavailableError(`${command} is not installed (command "${command}" was not found on PATH)`, {
      toolId,
      cause: e,
      details: { notInstalled: true },
    });
  }
  return new ToolUnavailableError(`${command} could not be started: ${e.message}`, { toolId, cause: e });
}

export interface CollectedProcessResult extends ProcessResult {
  /** All stdout, lines joined with `\n`. */
  stdout: string;
}

/** Run to completion and collect stdout. Non-zero exits resolve; the caller decides. */
export async function runProcess(options: SpawnOptions): Promise<CollectedProcessResult> {
  const proc = spawnProcess(options);
  const out: string[] = [];
  for await (const line of proc) out.push(line);
  const r = await proc.result;
  return { ...r, stdout: out.join('\n') };
}
