import { open, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Session files newest first: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.
 * Directory and file names sort by time, so only the directories needed to
 * reach the newest files are listed, however many sessions there are.
 */
export async function* newestSessionFiles(sessionsDir: string, signal?: AbortSignal): AsyncGenerator<string> {
  async function* walk(dir: string, depth: number): AsyncGenerator<string> {
    signal?.throwIfAborted();
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (depth < 3) {
      const dirs = entries.filter((e) => e.isDirectory() && /^\d+$/.test(e.name)).map((e) => e.name);
      dirs.sort((a, b) => Number(b) - Number(a));
      for (const d of dirs) yield* walk(path.join(dir, d), depth + 1);
      return;
    }
    const files = entries.filter((e) => e.isFile() && /^rollout-.*\.jsonl$/.test(e.name)).map((e) => e.name);
    files.sort().reverse();
    for (const f of files) yield path.join(dir, f);
  }
  yield* walk(sessionsDir, 0);
}

/** The last `bytes` of a file, split into complete lines (a partial first line is dropped). */
export async function tailLines(file: string, bytes: number): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    if (length < size) lines.shift();
    return lines;
  } finally {
    await handle.close();
  }
}
