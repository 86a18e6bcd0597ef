import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { RemoteChild, type Request } from './remote-child.js';
import { SPAWNER_SOURCE } from './spawner-source.js';

export type { SpawnedChild } from './remote-child.js';

/**
 * Tools are spawned from a small helper process, not from this one. `spawn()` forks the calling
 * process, and forking a busy 100+ MB process (the bridge, an Electron app) costs 2–5 ms here
 * against ~1 ms for an idle 40 MB one, plus copy-on-write faults the caller pays afterwards:
 * measured, that was most of the bridge's fixed per-chat cost over spawning the same CLI directly.
 * The helper spawns the tool exactly as we would (own process group, no shell) and hands the
 * three stdio sockets back over its IPC channel (Node's stdio pipes are socketpairs, so they can
 * travel), then reports the exit. Signals still go straight from here to the tool's process group.
 *
 * The helper starts on first use (that spawn, and any until it is ready, are direct), exits after
 * `IDLE_MS` without work, when this process goes away (its channel closes: it then ends the tools
 * it started), or if it fails; then spawning is direct until a new one is ready. Linux only;
 * `TOOLBRIDGE_SPAWNER=0` turns it off. It also guards long-lived tools (`watchGroup`): it does not
 * idle out while it watches one, and one that dies is replaced at once and told of them again.
 */

/** Tunables (tests shorten them). idleMs: without work for this long the helper exits; a new one starts with the next spawn. */
export const spawnerTuning = { idleMs: 30_000 };

/** The error code of a spawn the helper could not take because it ended first. */
export const SPAWNER_GONE = 'ESPAWNER_GONE';

class Spawner {
  private readonly proc: ChildProcess;
  private ready = false;
  private dead = false;
  private closing = false;
  private nextId = 0;
  private readonly requests = new Map<number, Request>();
  private idleTimer?: NodeJS.Timeout;

  constructor(onGone: (wasReady: boolean) => void) {
    this.proc = spawn(process.execPath, ['-e', SPAWNER_SOURCE], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      // Nothing of this process's environment: every spawn brings the tool's own, and a helper
      // carrying ours would look like one of our tools to whoever scans processes by environment.
      env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
      serialization: 'json',
    });
    this.proc.on('message', (m: SpawnerMessage, handle?: unknown) => this.onMessage(m, handle));
    const gone = () => {
      if (this.dead) return;
      this.dead = true;
      clearTimeout(this.idleTimer);
      onGone(this.ready || this.closing);
      for (const r of this.requests.values()) {
        if (r.child) r.child.orphaned();
        else r.reject(Object.assign(new Error('the spawner process ended'), { code: SPAWNER_GONE }));
      }
      this.requests.clear();
    };
    this.proc.once('exit', gone);
    this.proc.once('error', gone);
    // Told before anything else (a replacement for one that died): the channel keeps the order.
    for (const pid of watched) this.proc.send({ watch: pid });
    this.unrefWhenIdle();
  }

  /** Watch (or stop watching) a long-lived tool's process group: ended when this process goes away. */
  watch(pid: number, on: boolean): void {
    if (this.dead || !this.proc.connected) return;
    clearTimeout(this.idleTimer);
    this.proc.send(on ? { watch: pid } : { unwatch: pid });
    if (!on && this.requests.size === 0) this.unrefWhenIdle();
  }

  get pid(): number | undefined {
    return this.dead ? undefined : this.proc.pid;
  }

  get usable(): boolean {
    return this.ready && !this.dead;
  }

  spawn(file: string, args: readonly string[], options: { cwd?: string; env: NodeJS.ProcessEnv; stdin?: string }): Promise<RemoteChild> {
    const id = ++this.nextId;
    clearTimeout(this.idleTimer);
    // In flight work keeps this process alive until the helper reports the exit.
    (this.proc.channel as { ref?(): void } | undefined)?.ref?.();
    return new Promise<RemoteChild>((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      this.proc.send({ id, file, args, cwd: options.cwd, env: options.env, stdin: options.stdin });
    });
  }

  close(): void {
    this.closing = true;
    if (!this.dead && this.proc.connected) this.proc.disconnect();
  }

  private onMessage(m: SpawnerMessage, handle?: unknown): void {
    if ('ready' in m) {
      this.ready = true;
      // The idle clock starts once it is ready: a slow start is not idleness.
      if (this.requests.size === 0) this.unrefWhenIdle();
      return;
    }
    const r = this.requests.get(m.id);
    if (!r) return void (handle as { close?(): void } | undefined)?.close?.();
    if ('error' in m) {
      this.requests.delete(m.id);
      const error = Object.assign(new Error(m.error.message), { code: m.error.code });
      if (r.child) r.child.emit('error', error);
      else r.reject(error);
    } else if ('pid' in m) {
      // The raw pipe handle of the tool's stdout (see SPAWNER_SOURCE), ours to wrap.
      const stdout = new Socket({ handle, readable: true, writable: false } as ConstructorParameters<typeof Socket>[0]);
      r.child = new RemoteChild(m.pid, stdout);
      r.resolve(r.child);
    } else if ('stderr' in m) {
      r.child?.stderr.write(m.stderr);
    } else {
      // The request is done once the exit and the end of stderr (which descendants may hold) are both in.
      if ('exit' in m) {
        r.exited = true;
        r.child?.exited(m.exit[0], m.exit[1] as NodeJS.Signals | null);
      } else {
        r.stderrEnded = true;
        r.child?.stderr.end();
      }
      if (r.exited && r.stderrEnded) this.requests.delete(m.id);
    }
    if (this.requests.size === 0) this.unrefWhenIdle();
  }

  private unrefWhenIdle(): void {
    (this.proc.channel as { unref?(): void } | undefined)?.unref?.();
    this.proc.unref();
    clearTimeout(this.idleTimer);
    if (!this.ready || watched.size > 0) return;
    this.idleTimer = setTimeout(() => this.close(), spawnerTuning.idleMs);
    this.idleTimer.unref();
  }
}

type SpawnerMessage =
  | { ready: true }
  | { id: number; error: { code?: string; message: string } }
  | { id: number; exit: [number | null, string | null] }
  | { id: number; pid: number }
  | { id: number; stderr: string }
  | { id: number; stderrEnd: true };

let current: Spawner | undefined;
/** Process groups of long-lived tools the helper guards (see `watchGroup`). */
const watched = new Set<number>();
/** A helper that could not get ready: spawning stays direct for the rest of this process's life. */
let broken = false;

function enabled(): boolean {
  return !broken && process.platform === 'linux' && process.env.TOOLBRIDGE_SPAWNER !== '0';
}

/**
 * The helper, when it is ready to take a spawn; otherwise undefined (and it is started, so a later
 * spawn can use it). A failure to start it leaves spawning direct.
 */
export function readySpawner(): Pick<Spawner, 'spawn'> | undefined {
  if (!enabled()) return undefined;
  if (current?.usable) return current;
  if (!current) startSpawner();
  return undefined;
}

function startSpawner(): void {
  try {
    const s: Spawner = new Spawner((wasReady) => {
      if (!wasReady) broken = true;
      if (current !== s) return;
      current = undefined;
      // The tools it guarded must not go unguarded: a new helper takes them over.
      if (watched.size > 0 && enabled()) startSpawner();
    });
    current = s;
  } catch {
    broken = true;
    current = undefined;
  }
}

/**
 * Have the helper end a long-lived tool's process group (SIGTERM, then SIGKILL after 2 s) when this
 * process goes away, even by SIGKILL: the orphan guard of every warm server at once. Returns the
 * function that stops watching it, or undefined when the helper is not running and ready (not
 * Linux, turned off, not started yet): the caller then runs the tool under a guard of its own.
 */
export function watchGroup(pid: number): (() => void) | undefined {
  const helper = enabled() ? (readySpawner() as Spawner | undefined) : undefined;
  if (!helper) return undefined;
  watched.add(pid);
  helper.watch(pid, true);
  return () => {
    if (watched.delete(pid)) current?.watch(pid, false);
  };
}

/** The helper's pid while one is running (tests and diagnostics). */
export function spawnerPid(): number | undefined {
  return current?.pid;
}

/** End the helper now (tests; it also ends by itself when idle or when this process exits). */
export function stopSpawner(): void {
  current?.close();
  current = undefined;
}
