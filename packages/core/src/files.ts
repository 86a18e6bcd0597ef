import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/** Toolbridge's state directory: `$XDG_STATE_HOME/toolbridge`, else `~/.local/state/toolbridge`, from the given environment. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  if (env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)) return path.join(env.XDG_STATE_HOME, 'toolbridge');
  return path.join(env.HOME || homedir(), '.local', 'state', 'toolbridge');
}

/**
 * A directory only the user can enter (0700), made with its parents when missing (each made
 * 0700). With `strict`, an existing directory is set to 0700 too (for roots a user may have made).
 */
export async function privateDir(dir: string, strict = false): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (strict) await chmod(dir, 0o700);
  return dir;
}

/**
 * Write a file readable only by the user (0600), atomically: a reader never sees half a file,
 * and a process killed mid-write leaves the old file (and at worst a stray `.tmp`).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await privateDir(path.dirname(file));
  await replaceFile(file, data);
}

/** `writeFileAtomic` into a directory known to exist: two file system calls fewer (the mkdir and its stat). */
export async function replaceFile(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // Created 0600 (the umask can only take bits away), renamed over the old file in one step.
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/**
 * Run a write into `dir`, making the directory (0700) only if the write finds it missing: the
 * usual case, where it exists, costs no mkdir. Each file system call is a round trip through
 * libuv's thread pool, which on a loaded machine costs far more than the call itself.
 */
export async function inDir<T>(dir: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await privateDir(dir);
    return write();
  }
}
