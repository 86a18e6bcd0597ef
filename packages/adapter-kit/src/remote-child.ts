import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';

/** The part of a ChildProcess the runner uses (the input was handed over with the spawn). */
export interface SpawnedChild extends EventEmitter {
  readonly pid: number | undefined;
  readonly stdin: null;
  readonly stdout: Readable;
  readonly stderr: Readable;
}

/** A spawn the helper was asked for, and what of its end has been reported. */
export interface Request {
  resolve(child: RemoteChild): void;
  reject(error: NodeJS.ErrnoException): void;
  child?: RemoteChild;
  exited?: boolean;
  stderrEnded?: boolean;
}

/** A tool started by the helper: real pid and stdout socket; stderr and the exit relayed by the helper. */
export class RemoteChild extends EventEmitter implements SpawnedChild {
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
