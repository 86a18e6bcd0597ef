import type { ChildProcess } from 'node:child_process';
import { AbortedError, ProviderExecutionError, TimeoutError, ToolbridgeError } from '@toolbridge/core';
import { feedInput, launch, writeInput } from './launch.js';
import { guardStartFailure } from './orphan-guard.js';
import { endGroup, forgetGroup, forgetMarker, groupAlive, signalGroup, trackGroup } from './process-group.js';
import type { CollectedProcessResult, ProcessResult, RunningProcess, SpawnOptions } from './run-types.js';
import { RunOutput } from './run-output.js';
import { runFailure } from './spawn-failure.js';
import type { SpawnedChild } from './spawner.js';
import { killStragglers, newRunMarker } from './stragglers.js';

export { liveProcessGroupCount } from './process-group.js';
export type { CollectedProcessResult, ProcessResult, RunningProcess, SpawnOptions } from './run-types.js';

/**
 * A run's life, in order: `starting` (no process yet: the spawner may still be starting it),
 * `running`, `exited` (its exit seen; its output may still be coming), `closing` (its output
 * ended; helpers that left its group are being swept), `done` (the result settled).
 */
const PHASES = ['starting', 'running', 'exited', 'closing', 'done'] as const;
type Phase = (typeof PHASES)[number];

/**
 * Spawn a tool without a shell in its own process group, feed stdin, and
 * stream stdout line by line. Timeouts, aborts and early `break`s from the
 * iteration kill the whole group so no descendant survives.
 */
export function spawnProcess(options: SpawnOptions): RunningProcess {
  return new ToolRun(options);
}

/** Run to completion and collect stdout. Non-zero exits resolve; the caller decides. */
export async function runProcess(options: SpawnOptions): Promise<CollectedProcessResult> {
  const proc = spawnProcess(options);
  const out: string[] = [];
  for await (const line of proc) out.push(line);
  const r = await proc.result;
  return { ...r, stdout: out.join('\n') };
}

class ToolRun implements RunningProcess {
  private phase: Phase = 'starting';
  private failure?: ToolbridgeError;
  private proc?: SpawnedChild | ChildProcess;
  private readonly out: RunOutput;
  private exit: [number | null, NodeJS.Signals | null] = [null, null];
  private killTimer?: NodeJS.Timeout;
  private deadline?: NodeJS.Timeout;
  private unwatch?: () => void; // stops the spawner watching a guarded tool's group (see launch)
  private readonly marker: string | undefined;
  private readonly label: string;
  private readonly killGraceMs: number;
  private readonly started = performance.now();
  readonly result: Promise<ProcessResult>;
  private resolveResult!: (r: ProcessResult) => void;
  private rejectResult!: (e: unknown) => void;
  private readonly onAbort = () => this.terminate(this.cancelled());

  constructor(private readonly o: SpawnOptions) {
    // A long-lived tool talks for hours: only the line cap applies to it.
    const maxOutputBytes = o.maxOutputBytes ?? (o.interactive || o.orphanGuard ? Infinity : 32 * 1024 * 1024);
    this.killGraceMs = o.killGraceMs ?? 2000;
    this.label = o.toolId ?? o.command;
    this.out = new RunOutput(this.label, { ...o, maxOutputBytes });
    this.marker = (o.sweepStragglers ?? true) ? newRunMarker() : undefined;
    this.result = new Promise<ProcessResult>((res, rej) => {
      this.resolveResult = res;
      this.rejectResult = rej;
    });
    // The iterator reports failures too; an unobserved `result` must not crash the process.
    this.result.catch(() => {});
    // Cancelled before it started: nothing is spawned and the prompt goes nowhere.
    if (o.signal?.aborted) this.settleEarly(this.cancelled());
    else this.begin(o);
  }

  private begin(o: SpawnOptions): void {
    o.signal?.addEventListener('abort', this.onAbort, { once: true });
    const timeoutMs = o.timeoutMs ?? 0;
    const timedOut = () => new TimeoutError(`${this.label} did not finish within ${timeoutMs} ms`, { toolId: o.toolId, timeoutMs });
    if (timeoutMs > 0) this.deadline = setTimeout(() => this.terminate(timedOut()), timeoutMs);
    const attach = (child: SpawnedChild | ChildProcess, unwatch?: () => void) => this.attach(child, unwatch);
    launch(o, this.marker, { attach, fail: (e) => this.settleEarly(e), gaveUp: () => !!this.failure });
  }

  /** Whether the run is at `phase` or past it. */
  private past(phase: Phase): boolean {
    return PHASES.indexOf(this.phase) >= PHASES.indexOf(phase);
  }

  private cancelled(): ToolbridgeError {
    const reason = this.o.signal?.reason;
    return ToolbridgeError.isInstance(reason) ? reason : new AbortedError(`${this.label} was cancelled`, { toolId: this.o.toolId });
  }

  private terminate(reason: ToolbridgeError): void {
    if (this.past('closing')) return;
    this.failure ??= reason;
    const pid = this.proc?.pid;
    if (pid === undefined) {
      // Still being started by the spawner: it is ended as soon as it arrives (see attach), and
      // the run does not wait for it past the kill grace.
      this.killTimer ??= setTimeout(() => this.settleEarly(), this.killGraceMs + 1000).unref();
      return;
    }
    signalGroup(pid, 'SIGTERM');
    this.killTimer ??= setTimeout(() => {
      if (groupAlive(pid) || !this.past('exited')) signalGroup(pid, 'SIGKILL');
    }, this.killGraceMs).unref();
  }

  /** A run that ends before it has a process (cancelled first, failed to start). */
  private settleEarly(reason?: ToolbridgeError): void {
    if (this.past('closing')) return;
    if (reason) this.failure ??= reason;
    this.phase = 'done';
    clearTimeout(this.deadline);
    this.o.signal?.removeEventListener('abort', this.onAbort);
    this.rejectResult(this.failure);
    this.out.lines.notify();
  }

  private attach(child: SpawnedChild | ChildProcess, unwatch?: () => void): void {
    if (this.phase === 'done') {
      // Arrived after the run gave up on it: end it and let its pipes go.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      for (const s of [child.stdin, child.stdout, child.stderr]) s?.destroy();
      return unwatch?.();
    }
    this.unwatch = unwatch;
    clearTimeout(this.killTimer);
    this.killTimer = undefined;
    this.proc = child;
    this.phase = 'running';
    // Cancelled or timed out while the spawner was starting it: end it at once.
    if (this.failure) queueMicrotask(() => this.terminate(this.failure!));
    trackGroup(child.pid, this.marker);
    child.on('error', (e: NodeJS.ErrnoException) => {
      this.failure ??= runFailure(e, this.o.command, this.label, this.o.toolId);
      this.finish(null, null);
    });
    feedInput(child, this.o);
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.out.stderr(chunk));
    child.on('exit', (code, sig) => this.onExit(child, code, sig));
    child.on('close', (code: number | null, sig: NodeJS.Signals | null) => this.finish(code ?? this.exit[0], sig ?? this.exit[1]));
  }

  private onStdout(chunk: Buffer): void {
    // Once the run has failed (timeout, abort, a cap), nothing more of its output is used.
    if (this.failure) return;
    const broken = this.out.stdout(chunk);
    if (broken) this.terminate(new ProviderExecutionError(broken, { toolId: this.o.toolId }));
  }

  private onExit(child: SpawnedChild | ChildProcess, code: number | null, sig: NodeJS.Signals | null): void {
    if (!this.past('exited')) this.phase = 'exited';
    this.exit = [code, sig];
    // Descendants left running by the tool hold our pipes open; end them too.
    if (child.pid !== undefined) endGroup(child.pid, this.killGraceMs);
    // If pipes still do not close, do not wait forever.
    setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      this.finish(...this.exit);
    }, this.killGraceMs + 1000).unref();
  }

  private finish(code: number | null, sig: NodeJS.Signals | null): void {
    if (this.past('closing')) return;
    this.phase = 'closing';
    this.unwatch?.();
    this.out.lines.end(!this.failure);
    clearTimeout(this.deadline);
    this.o.signal?.removeEventListener('abort', this.onAbort);
    const pid = this.proc?.pid;
    if (pid !== undefined) {
      if (!groupAlive(pid)) {
        forgetGroup(pid);
        clearTimeout(this.killTimer);
      } else {
        // Keep tracking until the SIGKILL escalation has run.
        setTimeout(() => forgetGroup(pid), this.killGraceMs + 100).unref();
      }
    }
    const stderrTail = this.out.stderrTail(true);
    if (this.o.orphanGuard) this.failure ??= guardStartFailure(code, stderrTail, this.o.command, this.o.toolId);
    const settle = () => {
      this.phase = 'done';
      const durationMs = Math.round(performance.now() - this.started);
      if (this.failure) this.rejectResult(this.failure);
      else this.resolveResult({ exitCode: code, signal: sig, stderrTail, stdoutBytes: this.out.stdoutBytes, durationMs });
      this.out.lines.notify();
    };
    // The run is over only when nothing of it is left running.
    const marker = this.marker;
    if (!marker) return settle();
    // A run of less than a minute cannot have seen pids wrap round and past its first one.
    const fromPid = performance.now() - this.started < 60_000 ? pid : undefined;
    void killStragglers(marker, undefined, fromPid)
      .catch(() => [])
      .then(() => {
        forgetMarker(marker);
        settle();
      });
  }

  write(text: string): Promise<void> {
    const gone = (what: string) => this.failure ?? new ProviderExecutionError(`${this.label} ${what}`, { toolId: this.o.toolId });
    return this.phase === 'done' ? Promise.reject(gone('is no longer running')) : writeInput(this.proc?.stdin, text, gone);
  }

  private async next(): Promise<IteratorResult<string>> {
    for (;;) {
      if (this.failure && this.phase === 'done') throw this.failure;
      const line = this.out.lines.shift();
      if (line !== undefined) return { value: line, done: false };
      if (this.phase === 'done') return { value: undefined, done: true };
      await this.out.lines.wait();
    }
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Its exit, seen before its output has been read to the end; or a run that never had a process. */
  get exited(): boolean {
    return this.past('exited');
  }

  kill(reason?: ToolbridgeError): void {
    this.terminate(reason ?? new AbortedError(`${this.label} was stopped`, { toolId: this.o.toolId }));
  }

  endInput(): void {
    this.proc?.stdin?.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => this.next(),
      return: async (): Promise<IteratorResult<string>> => {
        // The consumer stopped early (break, thrown error): the tool must not keep running.
        if (this.phase !== 'done') this.terminate(new AbortedError(`${this.label} was stopped by its consumer`, { toolId: this.o.toolId }));
        return { value: undefined, done: true };
      },
    };
  }
}
