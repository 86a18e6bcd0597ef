import { appendFile, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { inDir, writeFileAtomic } from './files.js';

export interface JsonlLogOptions<T> {
  /** The file (its folder is made 0700, the file 0600). */
  file: string;
  /** Past this size the log is compacted to about half of it, oldest records first out. */
  maxBytes: number;
  /** A line read back is kept only if it passes (a torn or foreign line is skipped). */
  accept(value: unknown): value is T;
}

/**
 * An append-only JSON-lines file with an in-memory copy, for records a local service keeps
 * across restarts. Each record is one `appendFile` (O_APPEND) as soon as it is added, so a crash
 * or SIGKILL loses at most the record being written; a torn last line is skipped when read back
 * and never glued to the next record. Past `maxBytes` the file is rewritten (write-then-rename)
 * with the newest records only. One process writes a log; readers see its in-memory copy.
 */
export class JsonlLog<T> {
  private records: T[] = [];
  private bytes = 0;
  private loaded: Promise<void> | undefined;
  /** The file ends in the middle of a line (a write cut short): the next append starts a new one. */
  private torn = false;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly options: JsonlLogOptions<T>) {}

  /** Read the file once (lazily): nothing is touched on disk until the log is used. */
  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const text = await readFile(this.options.file, 'utf8').catch(() => '');
      this.bytes = Buffer.byteLength(text);
      this.torn = text.length > 0 && !text.endsWith('\n');
      for (const line of text.split('\n')) {
        if (!line) continue;
        try {
          const value: unknown = JSON.parse(line);
          if (this.options.accept(value)) this.records.push(value);
        } catch {
          // A line cut short by a crash: skipped.
        }
      }
    })();
    return this.loaded;
  }

  /** Every record kept, oldest first. */
  async all(): Promise<readonly T[]> {
    await this.load();
    await this.tail.catch(() => undefined);
    return this.records;
  }

  /** Add a record: kept in memory at once and appended to the file; resolves once it is written. */
  append(record: T): Promise<void> {
    const write = async () => {
      await this.load();
      this.records.push(record);
      const line = `${this.torn ? '\n' : ''}${JSON.stringify(record)}\n`;
      // The folder is made when the append finds it missing: no mkdir per record (a chat's answer waits on the thread pool too).
      await inDir(path.dirname(this.options.file), () => appendFile(this.options.file, line, { mode: 0o600 }));
      this.torn = false;
      this.bytes += Buffer.byteLength(line);
      if (this.bytes > this.options.maxBytes) await this.compact();
    };
    const done = this.tail.then(write, write);
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** Keep the newest records that fit in half the bound; write-then-rename, so a crash leaves one whole file. */
  private async compact(): Promise<void> {
    const keep: string[] = [];
    let size = 0;
    let i = this.records.length;
    while (i > 0) {
      const line = `${JSON.stringify(this.records[i - 1])}\n`;
      if (size + Buffer.byteLength(line) > this.options.maxBytes / 2) break;
      keep.push(line);
      size += Buffer.byteLength(line);
      i--;
    }
    await writeFileAtomic(this.options.file, keep.reverse().join(''));
    this.records = this.records.slice(i);
    this.bytes = size;
  }

  /** Bytes on disk now (for tests and `doctor`). */
  async size(): Promise<number> {
    await this.all();
    return stat(this.options.file).then(
      (s) => s.size,
      () => 0,
    );
  }
}
