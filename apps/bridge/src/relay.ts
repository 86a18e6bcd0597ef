import { noResultError } from '@toolbridge/core/runtime';
import type { Response } from 'express';
import { SseWriter, type SseDialect } from './sse.js';

/** One SSE event to send. */
export interface SseFrame {
  event: string;
  data: unknown;
  /** The response is complete with this frame. */
  final?: boolean;
  /** May be held back: the stream is not committed yet, so a later failure can still be a plain HTTP error. */
  preliminary?: boolean;
}

export interface RelayOptions<E> {
  dialect: SseDialect;
  keepAliveMs: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  toolId?: string;
  /** The frames an event becomes (none, one, or several). */
  frames(event: E): SseFrame[];
  /** The payload of the error event sent when a committed stream fails; also records the error code. */
  error(err: unknown): { payload: unknown; code: string };
}

/**
 * Relay library stream events as SSE, for the native API and `/v1` alike. Nothing is written
 * until the first frame that is not preliminary, so failures before it are ordinary HTTP errors
 * with their status; after it, a failure ends the stream with an error event, never a clean end
 * that looks like success. Leaving early (client gone, error sent) stops the tool.
 */
export async function relaySse<E>(res: Response, events: AsyncIterable<E>, o: RelayOptions<E>): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const held: SseFrame[] = [];
  let sse: SseWriter | undefined;
  let finished = false;
  let exhausted = false;
  res.locals.stream = true;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      for (const f of o.frames(next.value)) {
        if (f.final) finished = true;
        if (sse) {
          await sse.send(f.event, f.data);
          continue;
        }
        held.push(f);
        if (f.preliminary) continue;
        sse = new SseWriter(res, o.dialect, o.keepAliveMs);
        sse.start();
        for (const h of held.splice(0)) await sse.send(h.event, h.data);
      }
    }
    if (!finished) throw noResultError('the tool', o.toolId);
  } catch (err) {
    // The client is gone: nobody to tell; the finally block stops the tool.
    if (o.signal.aborted && res.destroyed) return;
    if (!sse) throw err;
    const { payload, code } = o.error(err);
    res.locals.errorCode = code;
    await sse.send('error', payload);
  } finally {
    if (!exhausted && iterator.return) await iterator.return(undefined).catch(() => undefined);
    sse?.end(finished);
  }
}
