import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { inDir } from '../files.js';

/**
 * A new session's transcript and record, opened (0600, empty) while its first turn runs, so that
 * writing them once the answer is in is one call each instead of open, write and close: on the
 * path to the answer, each file system call is a round trip through libuv's thread pool, which
 * on a loaded machine costs far more than the call itself. An empty record is no record (as a torn
 * one): until the record is written, the folder is a turn that never finished, as before.
 * Closing is off the path: what `write` returned is on disk as far as a killed process goes.
 */
export class NewSessionFiles {
  private readonly opened: Promise<FileHandle[] | undefined>;
  private closed?: Promise<void>;

  constructor(folder: string, names: readonly string[]) {
    this.opened = (async () => {
      const handles: FileHandle[] = [];
      try {
        for (const name of names) handles.push(await inDir(folder, () => open(path.join(folder, name), 'w', 0o600)));
        return handles;
      } catch {
        await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
        return undefined; // the caller writes the files by path (and sees the error there)
      }
    })();
  }

  /** Write each file's text, in order; false (nothing written) when the files could not be opened. */
  async write(texts: readonly string[]): Promise<boolean> {
    const handles = await this.opened;
    if (!handles || this.closed) return false;
    try {
      for (let i = 0; i < handles.length; i++) {
        const data = Buffer.from(texts[i] ?? '');
        for (let at = 0; at < data.length;) at += (await handles[i]!.write(data, at, data.length - at, at)).bytesWritten;
      }
      return true;
    } finally {
      void this.close();
    }
  }

  close(): Promise<void> {
    this.closed ??= this.opened.then(async (handles) => {
      await Promise.all((handles ?? []).map((h) => h.close().catch(() => undefined)));
    });
    return this.closed;
  }
}
