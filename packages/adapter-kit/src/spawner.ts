import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';

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
 * `TOOLBRIDGE_SPAWNER=0` turns it off.
 */
const SPAWNER_SOURCE = `
const { spawn } = require('child_process');
const live = new Map();
const send = (m, h) => { try { process.send(m, h); } catch {} };
process.on('message', (m) => {
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  } catch (e) {
    return send({ id: m.id, error: { code: e.code, message: e.message } });
  }
  child.on('error', (e) => send({ id: m.id, error: { code: e.code, message: e.message } }));
  if (child.pid === undefined) return;
  // stdout's pipe goes over as a raw handle, taken from its socket at once: left there, a quick
  // tool's output (even its EOF) would be read here before the handle left, and lost.
  const out = child.stdout._handle;
  if (out.reading) { out.reading = false; out.readStop(); }
  out.onread = () => {};
  child.stdout._handle = null;
  live.set(m.id, child.pid);
  send({ id: m.id, pid: child.pid }, out);
  // The input is known up front and stderr is small: both travel as messages, so a spawn costs one
  // handle (each waits for the previous one's ack).
  child.stdin.on('error', () => {});
  child.stdin.end(m.stdin ?? '');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => send({ id: m.id, stderr: text }));
  child.stderr.on('close', () => send({ id: m.id, stderrEnd: true }));
  child.on('exit', (code, signal) => { live.delete(m.id); send({ id: m.id, exit: [code, signal] }); });
});
process.on('disconnect', () => {
  for (const pid of live.values()) { try { process.kill(-pid, 'SIGTERM'); } catch {} }
  process.exit(0);
});
process.send({ ready: true });
`;

/** Tunables (tests shorten them). idleMs: without work for this long the helper exits; a new one starts with the next spawn. */
export const spawnerTuning = { idleMs: 30_000 };

/** The error code of a spawn the helper could not take because it ended first. */
export const SPAWNER_GONE = 'ESPAWNER_GONE';

/** The part of a ChildProcess the runner uses (the input was handed over with the spawn). */
export interface SpawnedChild extends EventEmitter {
  readonly pid: number | undefined;
  readonly stdin: null;
  readonly stdout: Readable;
  readonly stderr: Readable;
}

interface Request {
  resolve(child: RemoteChild): void;
  reject(error: NodeJS.ErrnoException): void;
  child?: RemoteChild;
  exited?: boolean;
  stderrEnded?: boolean;
}

/** A tool started by the helper: real pid and stdout socket; stderr and the exit relayed by the helper. */
class RemoteChild extends EventEmitter implements SpawnedChild {
  readonly stdin = null;
  readonly stderr = new PassThrough();
  private open = 2;
  private exitArgs?: [number | null, NodeJS.Signals | null];
  constructor(
    readonly pid: number,
    readonly stdout: Socket,
  ) {
    super();
    for (const s of [stdout, this.stderr]) s.once('close', () => (--this.open === 0 ? this.maybeClose() : undefined));
  }
  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitArgs) return;
    this.exitArgs = [code, signal];
    this.emit('exit', code, signal);
    this.maybeClose();
  }
  /** The helper is gone: no exit will be reported, so the end of the output stands for it. */
  orphaned(): void {
    this.stderr.end();
    if (this.open === 0) this.exited(null, null);
    else this.once('outputClosed', () => this.exited(null, null));
  }
  private maybeClose(): void {
    if (this.open > 0) return;
    if (!this.exitArgs) return void this.emit('outputClosed');
    this.emit('close', ...this.exitArgs);
  }
}

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
    this.unrefWhenIdle();
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
    if (!this.ready) return;
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
  if (!current) {
    try {
      const s: Spawner = new Spawner((wasReady) => {
        if (!wasReady) broken = true;
        if (current === s) current = undefined;
      });
      current = s;
    } catch {
      broken = true;
      current = undefined;
    }
  }
  return undefined;
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
