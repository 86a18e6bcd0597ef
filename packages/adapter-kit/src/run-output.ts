import { StringDecoder } from 'node:string_decoder';
import { LineReader } from './line-reader.js';

/** A run's output: stdout as lines within its caps, and the end of stderr. */
export class RunOutput {
  readonly lines: LineReader;
  stdoutBytes = 0;
  private tail = '';
  private readonly stderrDecoder = new StringDecoder('utf8');
  private readonly maxOutputBytes: number;
  private readonly maxLineBytes: number;

  constructor(
    private readonly label: string,
    private readonly o: { maxOutputBytes: number; maxLineBytes?: number; stderrTailBytes?: number; onStderr?: (text: string) => void },
  ) {
    this.maxOutputBytes = o.maxOutputBytes;
    this.maxLineBytes = o.maxLineBytes ?? 8 * 1024 * 1024;
    this.lines = new LineReader(this.maxLineBytes);
  }

  /** Take a stdout chunk; what went wrong when it broke a cap (the run is then ended). */
  stdout(chunk: Buffer): string | undefined {
    this.stdoutBytes += chunk.length;
    if (this.stdoutBytes > this.maxOutputBytes) return `${this.label} produced more than ${this.maxOutputBytes} bytes of output`;
    if (!this.lines.push(chunk)) return `${this.label} wrote a line longer than ${this.maxLineBytes} bytes`;
    return undefined;
  }

  stderr(chunk: Buffer): void {
    const text = this.stderrDecoder.write(chunk);
    this.o.onStderr?.(text);
    this.tail = (this.tail + text).slice(-(this.o.stderrTailBytes ?? 16 * 1024));
  }

  /** The last `stderrTailBytes` of stderr (call once its output has ended for the whole of it). */
  stderrTail(ended = false): string {
    if (ended) this.tail += this.stderrDecoder.end();
    return this.tail;
  }
}
