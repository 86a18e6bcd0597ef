import type { Response } from 'express';

/**
 * Write to a streaming response and wait while the socket is backed up, so a
 * client that reads slowly slows the tool down instead of growing our memory.
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

/** Writes Server-Sent Events; keep-alive comments stop proxies and clients from timing out idle streams. */
export class SseWriter {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: Response,
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

  send(event: string, data: unknown): Promise<void> {
    return writeWithBackpressure(this.res, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.open) this.res.end();
  }
}
