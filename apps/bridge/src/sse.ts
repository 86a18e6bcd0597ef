import type { Response } from 'express';

/**
 * Write to a streaming response and wait while the socket is backed up, so a client that reads
 * slowly slows the tool down instead of growing our memory.
 */
export function writeWithBackpressure(res: Response, text: string): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  if (res.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const settle = () => {
      res.off('drain', settle);
      res.off('close', settle);
      resolve();
    };
    res.on('drain', settle);
    res.on('close', settle);
  });
}

/** `native`: named events (`event: delta`); `openai`: bare `data:` lines ended by `data: [DONE]`. */
export type SseDialect = 'native' | 'openai';

/**
 * The one Server-Sent Events writer, in both dialects. Keep-alive comments stop proxies and
 * clients from timing out idle streams; `X-Accel-Buffering: no` makes reverse proxies pass
 * tokens through as they come.
 */
export class SseWriter {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: Response,
    private readonly dialect: SseDialect,
    private readonly keepAliveMs: number,
  ) {}

  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  start(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache, no-transform');
    this.res.setHeader('Connection', 'keep-alive');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
    this.timer = setInterval(() => {
      if (this.open) this.res.write(': keep-alive\n\n');
    }, this.keepAliveMs);
    this.timer.unref();
  }

  /** One event; the name is used by the native dialect only. Waits while the socket is backed up. */
  send(event: string, data: unknown): Promise<void> {
    const name = this.dialect === 'native' ? `event: ${event}\n` : '';
    return writeWithBackpressure(this.res, `${name}data: ${JSON.stringify(data)}\n\n`);
  }

  /** End the stream; `complete` says it ended as it should (OpenAI's dialect then sends `[DONE]`). */
  end(complete: boolean): void {
    if (this.timer) clearInterval(this.timer);
    if (!this.open) return;
    if (complete && this.dialect === 'openai') this.res.end('data: [DONE]\n\n');
    else this.res.end();
  }
}
