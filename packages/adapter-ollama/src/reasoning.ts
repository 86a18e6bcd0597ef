import type { Activity } from '@toolbridge/core';

/** How often, and how much of it, the live reasoning is shown. */
export interface ReasoningThrottle {
  /** Least time between two updates of one step (default 250 ms: a steady live view, four a second). */
  intervalMs?: number;
  /** Most characters an update carries, the latest ones (default 2000); `completed` carries everything. */
  maxChars?: number;
  /** The clock (tests). */
  now?: () => number;
}

export const REASONING_INTERVAL_MS = 250;
export const REASONING_MAX_CHARS = 2000;

/** The last `max` characters of `text`, marked as cut, never starting inside a surrogate pair. */
function tail(text: string, max: number): string {
  if (text.length <= max) return text;
  let start = text.length - (max - 1);
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start += 1;
  return '…' + text.slice(start);
}

/**
 * A thinking model's `message.thinking` as `reasoning` activity: one step per run of thinking
 * chunks, started → updated → completed (or failed when the answer breaks off).
 *
 * Why throttled: Ollama sends thinking one token per chunk. An update per token carrying the
 * whole text so far made a long reasoning quadratic: 5,000 thinking tokens of 5 characters were
 * 5,001 activity events carrying 62.5 M characters, through core and to every SSE client
 * (measured with the in-test server). Now an update goes out only when `intervalMs` has passed
 * since the last one and carries at most the latest `maxChars` characters, so a step costs at
 * most 2 + duration/intervalMs events of bounded size however long it is (the same stream: 9
 * events, 38 K characters, 25 K of them the final text). The whole text comes once, on
 * `completed`, which is what `result.activities` keeps. Text held back by the throttle shows with
 * the next chunk after the interval, or on `completed`.
 */
export class ReasoningSteps {
  private readonly intervalMs: number;
  private readonly maxChars: number;
  private readonly now: () => number;
  private text = '';
  private open = false;
  private steps = 0;
  private lastShown = 0;

  constructor(throttle: ReasoningThrottle = {}) {
    this.intervalMs = throttle.intervalMs ?? REASONING_INTERVAL_MS;
    this.maxChars = throttle.maxChars ?? REASONING_MAX_CHARS;
    this.now = throttle.now ?? (() => performance.now());
  }

  /** More thinking: an activity to show now, or nothing (throttled). */
  push(piece: string): Activity | undefined {
    if (piece.length === 0) return undefined;
    this.text += piece;
    const now = this.now();
    if (!this.open) {
      // Thinking after an answer had begun is a new step (it never reopens a completed one).
      this.open = true;
      this.steps += 1;
      this.lastShown = now;
      return this.activity('started', tail(this.text, this.maxChars));
    }
    if (now - this.lastShown < this.intervalMs) return undefined;
    this.lastShown = now;
    return this.activity('updated', tail(this.text, this.maxChars));
  }

  /** The open step ends (the answer begins, or the stream is done): its whole text. */
  complete(): Activity | undefined {
    return this.close('completed');
  }

  /** The open step ends because the answer broke off. */
  fail(): Activity | undefined {
    return this.close('failed');
  }

  private close(status: 'completed' | 'failed'): Activity | undefined {
    if (!this.open) return undefined;
    const activity = this.activity(status, this.text);
    this.open = false;
    this.text = '';
    return activity;
  }

  private activity(status: Activity['status'], text: string): Activity {
    const id = this.steps === 1 ? 'reasoning' : `reasoning-${this.steps}`;
    return { id, kind: 'reasoning', status, title: 'Thinking', text };
  }
}
