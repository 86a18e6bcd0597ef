import { AbortedError } from './errors.js';
import type { Approval } from './wire/approvals.js';

/**
 * How long an adapter with a native interrupt gets to end its turn before core stops the stream
 * itself (the contract: an interrupted turn ends within 2 s).
 */
export const NATIVE_INTERRUPT_GRACE_MS = 1_500;

/** What `pump` waits for besides the adapter's next event. */
export type Wakeup = { type: 'approval' } | { type: 'stop' };

/**
 * The caller's hold on one running turn: its interrupt, the approvals to show while the adapter
 * waits for an answer, and the stop core uses when the adapter does not end by itself.
 */
export class TurnControl {
  readonly interrupt = new AbortController();
  /** Aborts the adapter's stream (its signal) without failing the turn: a generic interrupt. */
  readonly stop = new AbortController();
  private readonly queue: Approval[] = [];
  private wake: ((w: Wakeup) => void) | undefined;
  private stopTimer: NodeJS.Timeout | undefined;
  private stopDue = false;

  constructor(private readonly nativeInterrupt: boolean) {}

  get interrupted(): boolean {
    return this.interrupt.signal.aborted;
  }

  /** Interrupt the turn: natively when the adapter can (with a bounded grace), else at once. */
  fire(): void {
    if (this.interrupted) return;
    this.interrupt.abort(new AbortedError('The turn was interrupted'));
    if (!this.nativeInterrupt) return this.dueStop();
    this.stopTimer = setTimeout(() => this.dueStop(), NATIVE_INTERRUPT_GRACE_MS);
    this.stopTimer.unref?.();
  }

  /** Queue an approval event for the turn's stream. */
  push(approval: Approval): void {
    this.queue.push(approval);
    this.notify({ type: 'approval' });
  }

  take(): Approval | undefined {
    return this.queue.shift();
  }

  /** Resolves when there is something besides the adapter's events to act on. */
  next(): Promise<Wakeup> {
    if (this.stopDue) return Promise.resolve({ type: 'stop' });
    if (this.queue.length > 0) return Promise.resolve({ type: 'approval' });
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** Whether core must end the adapter's stream itself. */
  get mustStop(): boolean {
    return this.stopDue;
  }

  dispose(): void {
    if (this.stopTimer) clearTimeout(this.stopTimer);
  }

  private dueStop(): void {
    this.stopDue = true;
    this.notify({ type: 'stop' });
  }

  private notify(w: Wakeup): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.(w);
  }
}

/** The turns running now, by session, so `interrupt(sessionId)` can reach them. */
export class RunningTurns {
  private readonly bySession = new Map<string, TurnControl>();

  add(sessionId: string, control: TurnControl): () => void {
    this.bySession.set(sessionId, control);
    return () => {
      if (this.bySession.get(sessionId) === control) this.bySession.delete(sessionId);
    };
  }

  /** Interrupt the session's running turn; false when none runs. */
  interrupt(sessionId: string): boolean {
    const control = this.bySession.get(sessionId);
    if (!control) return false;
    control.fire();
    return true;
  }
}
