import type { ChatContext, ChatResult, StreamEvent, ToolbridgeError, ToolRequest } from '@toolbridge/core';
import { toolFailure } from './failures.js';
import { runFiles, type RunFiles } from './run-files.js';
import type { ProcessResult, RunningProcess, SpawnOptions } from './run-types.js';
import { spawnProcess } from './runner.js';

/** What to start: the runner's options but the call's own (cwd, signal, tool id), which the skeleton adds; `env` defaults to `ctx.env`. */
export interface SpawnLaunch extends Omit<SpawnOptions, 'cwd' | 'signal' | 'toolId' | 'onStderr'> {
  /** stderr as it comes; `proc.kill(error)` ends the run with that error (a tool about to retry for minutes). */
  onStderr?(text: string, proc: RunningProcess): void;
}

/** How the run ended when the skeleton stopped it (after the answer, or at the caller's interrupt): no exit to report. */
export const NO_EXIT: ProcessResult = { exitCode: null, signal: null, stderrTail: '', stdoutBytes: 0, durationMs: 0 };

/**
 * A tool's spawn-per-chat turn, as data and small functions: everything else (files, spawning,
 * reading, the result's `transport`, failures that are not typed, killing and waiting) is the
 * skeleton's. A parser keeps its own state between `line`, `failed`, `answered` and `finish`.
 */
export interface SpawnTurnSpec {
  /** The tool's display name and id, for errors. */
  name: string;
  toolId: string;
  /** argv, environment and stdin (the prompt: never argv), given the run's files. Throw typed errors to refuse. */
  launch(files: RunFiles): SpawnLaunch | Promise<SpawnLaunch>;
  /** One stdout line as the events it makes (an approvals run may answer the tool on `proc` here). */
  line(line: string, proc: RunningProcess): Iterable<StreamEvent> | Promise<Iterable<StreamEvent>>;
  /** After a line's events: a failure the tool reported that ends the run now (it may go on waiting or retrying). */
  failed?(): ToolbridgeError | undefined;
  /**
   * The answer is in: the rest of the output is not read, `onAnswer` runs (close an approvals
   * run's input) and a run still going after `afterAnswerMs` is ended; the answer stands.
   */
  answered?(): boolean;
  onAnswer?(proc: RunningProcess): void;
  afterAnswerMs?: number;
  /**
   * `ctx.interrupt`: stop the tool's turn (`'kill'` ends the process; a function may ask the tool
   * natively), then `finish` with `interrupted` and the text so far. Without it the turn is not interruptible.
   */
  interrupt?: 'kill' | ((proc: RunningProcess) => void);
  /**
   * The result, or the typed error (classified from the tool's facts: its events first, then the
   * exit and stderr). It may yield events first (steps known only after the exit). `transport` is added.
   */
  finish(exit: ProcessResult, end: { interrupted: boolean }): ChatResult | Promise<ChatResult> | AsyncGenerator<StreamEvent, ChatResult>;
}

function isGenerator(x: unknown): x is AsyncGenerator<StreamEvent, ChatResult> {
  return typeof (x as AsyncGenerator | undefined)?.[Symbol.asyncIterator] === 'function';
}

/**
 * One chat as one run of the tool: run files → spawn (the kit's runner: own process group, no
 * shell) → events line by line → the result with `transport: 'spawn'` → or the failure, typed;
 * the process is ended and waited for however the turn ends (no child outlives the call).
 */
export async function* spawnTurn(request: ToolRequest, ctx: ChatContext, spec: SpawnTurnSpec): AsyncGenerator<StreamEvent> {
  let proc: RunningProcess | undefined;
  let grace: NodeJS.Timeout | undefined;
  const interrupted = () => spec.interrupt !== undefined && ctx.interrupt?.aborted === true;
  const onInterrupt = () => {
    if (!proc) return;
    if (spec.interrupt === 'kill') proc.kill();
    else spec.interrupt?.(proc);
  };
  try {
    ctx.signal.throwIfAborted();
    const { onStderr, ...launch } = await spec.launch(runFiles(request, ctx));
    ctx.signal.throwIfAborted();
    const running: RunningProcess = spawnProcess({
      ...launch,
      env: launch.env ?? ctx.env,
      cwd: ctx.cwd,
      signal: ctx.signal,
      toolId: spec.toolId,
      ...(onStderr ? { onStderr: (text: string) => onStderr(text, running) } : {}),
    });
    proc = running;
    if (spec.interrupt) ctx.interrupt?.addEventListener('abort', onInterrupt, { once: true });
    let exit = NO_EXIT;
    try {
      for await (const line of running) {
        if (spec.answered?.()) continue;
        yield* await spec.line(line, running);
        const failure = spec.failed?.();
        if (failure) throw failure;
        if (spec.answered?.()) {
          spec.onAnswer?.(running);
          grace = setTimeout(() => running.kill(), spec.afterAnswerMs ?? 0);
        }
      }
      exit = await running.result;
    } catch (e) {
      // Ended by us after its answer, or at the caller's interrupt: the answer (so far) stands.
      if (!spec.answered?.() && !interrupted()) throw e;
    }
    const end = spec.finish(exit, { interrupted: interrupted() });
    const result = isGenerator(end) ? yield* end : await end;
    yield { type: 'result', result: { ...result, metadata: { ...result.metadata, transport: 'spawn' } } };
  } catch (e) {
    throw toolFailure(e, spec.name, spec.toolId);
  } finally {
    clearTimeout(grace);
    ctx.interrupt?.removeEventListener('abort', onInterrupt);
    if (proc) {
      proc.kill();
      await proc.result.catch(() => undefined);
    }
  }
}
