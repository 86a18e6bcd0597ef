import { StringDecoder } from 'node:string_decoder';

/**
 * A tool's stdout as lines: chunks in (UTF-8 split anywhere, `\r\n` or `\n`), whole lines out, with
 * a cap on one unfinished line. Whoever waits for a line is woken by `notify()`.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private wake?: () => void;

  constructor(private readonly maxLineBytes: number) {}

  /** Take a chunk; false when the unfinished line passed the cap (it is dropped: no piece of it is ever a line). */
  push(chunk: Buffer): boolean {
    this.partial += this.decoder.write(chunk);
    let nl: number;
    while ((nl = this.partial.indexOf('\n')) >= 0) {
      this.lines.push(this.partial.slice(0, nl).replace(/\r$/, ''));
      this.partial = this.partial.slice(nl + 1);
    }
    const fits = Buffer.byteLength(this.partial) <= this.maxLineBytes;
    if (!fits) this.partial = '';
    this.notify();
    return fits;
  }

  /** The output ended: its unfinished last line is a line too, when `keep`. */
  end(keep: boolean): void {
    const rest = this.partial + this.decoder.end();
    if (rest.length > 0 && keep) this.lines.push(rest.replace(/\r$/, ''));
    this.partial = '';
  }

  /** The next line, or undefined when none is waiting. */
  shift(): string | undefined {
    return this.lines.shift();
  }

  /** Resolves at the next `notify()` (a line, or the run's end). */
  wait(): Promise<void> {
    return new Promise<void>((r) => (this.wake = r));
  }

  notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}
