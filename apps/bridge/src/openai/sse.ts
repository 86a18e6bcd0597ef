import type { Response } from 'express';
import { writeWithBackpressure } from '../sse.js';

/** Server-sent events in OpenAI's dialect: bare `data:` lines, no event names. */
export interface SseWriter {
  /** Send one `data: <json>` event; waits while the socket is backed up. */
  data(payload: unknown): Promise<void>;
  /** Send `data: [DONE]` and end the response: the one clean ending. */
  done(): void;
  /** End without `[DONE]` (after an error event). */
  end(): void;
}

export function openSse(res: Response): SseWriter {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('connection', 'keep-alive');
  // Reverse proxies (nginx) must pass tokens through as they come.
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();

  return {
    data: (payload) => writeWithBackpressure(res, `data: ${JSON.stringify(payload)}\n\n`),
    done() {
      if (res.destroyed || res.writableEnded) return;
      res.end('data: [DONE]\n\n');
    },
    end() {
      if (res.destroyed || res.writableEnded) return;
      res.end();
    },
  };
}
