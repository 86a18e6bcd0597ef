import type { Response } from 'express';

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

  send(event: string, data: unknown): void {
    if (!this.open) return;
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.open) this.res.end();
  }
}
