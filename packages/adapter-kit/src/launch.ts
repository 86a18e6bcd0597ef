import { spawn as crossSpawn } from 'cross-spawn';
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { ToolbridgeError } from '@toolbridge/core';
import { guarded } from './orphan-guard.js';
import type { SpawnOptions } from './run-types.js';
import { spawnFailure } from './spawn-failure.js';
import { readySpawner, SPAWNER_GONE, watchGroup, type SpawnedChild } from './spawner.js';
import { RUN_MARKER_ENV } from './stragglers.js';

/**
 * Start a run's process in a group of its own, without a shell: short runs from the spawner (see
 * spawner.ts), long-lived ones (which gain nothing) and any the spawner cannot take directly. A
 * guarded one is watched by the spawner (one helper for every warm server), or, when there is no
 * spawner ready, runs under a guard of its own. The environment carries the run's marker. `attach`
 * gets the process (and for a watched one the function that stops watching it), `fail` the reason
 * it could not start; `gaveUp` says the run no longer wants one.
 */
export function launch(
  o: SpawnOptions,
  marker: string | undefined,
  {
    attach,
    fail,
    gaveUp,
  }: { attach(child: SpawnedChild | ChildProcess, unwatch?: () => void): void; fail(e: ToolbridgeError): void; gaveUp(): boolean },
): void {
  const toolEnv = marker ? { ...(o.env ?? process.env), [RUN_MARKER_ENV]: marker } : (o.env ?? process.env);
  const args = o.args ?? [];
  // Asked before the spawn: a guard of its own is chosen only when the spawner cannot watch.
  const shared = o.orphanGuard === true && readySpawner() !== undefined;
  const ownGuard = o.orphanGuard && !shared;
  const { file, argv, env } = ownGuard ? guarded(o.command, args, toolEnv) : { file: o.command, argv: [...args], env: toolEnv };
  const direct = () => {
    try {
      const detached = process.platform !== 'win32';
      // A watched server gets no input, exactly as under a guard of its own (which gives the tool
      // none): nothing it could wait on or read from this process.
      const stdin = shared ? 'ignore' : 'pipe';
      const child = crossSpawn(file, argv, { cwd: o.cwd, env, stdio: [stdin, 'pipe', 'pipe'], detached, windowsHide: true });
      // Told at once, in the same turn as the ready check above (a message on an open channel):
      // the only moment this process could die leaving the tool unwatched is this line.
      const unwatch = shared && child.pid !== undefined ? watchGroup(child.pid) : undefined;
      attach(child, unwatch);
    } catch (e) {
      fail(spawnFailure(e as NodeJS.ErrnoException, o.command, o.toolId));
    }
  };
  const spawner = o.interactive || o.orphanGuard ? undefined : readySpawner();
  if (!spawner) return direct();
  spawner.spawn(file, argv, { cwd: o.cwd, env, stdin: o.stdin }).then(attach, (e: NodeJS.ErrnoException) => {
    // The helper itself went away before it started the tool: start it here instead.
    if (e.code === SPAWNER_GONE && !gaveUp()) direct();
    else fail(spawnFailure(e, o.command, o.toolId));
  });
}

/** Give a started process its input: written and closed for a short run, written and kept open for a long-lived one. */
export function feedInput(child: SpawnedChild | ChildProcess, o: SpawnOptions): void {
  // EPIPE when the tool exits without reading its input is not our failure; the exit code tells.
  child.stdin?.on('error', () => {});
  if (!o.interactive && !o.orphanGuard) child.stdin?.end(o.stdin);
  else if (o.stdin !== undefined) child.stdin?.write(o.stdin);
}

/** Write to a long-lived process's stdin, waiting while the pipe is full; `gone` builds the error once it no longer reads. */
export function writeInput(stdin: Writable | null | undefined, text: string, gone: (what: string) => Error): Promise<void> {
  if (!stdin || stdin.destroyed || stdin.writableEnded) return Promise.reject(gone('is no longer running'));
  return new Promise<void>((resolve, reject) => {
    if (stdin.write(text, (e) => e && reject(gone('stopped reading its input')))) resolve();
    else stdin.once('drain', () => resolve());
  });
}
