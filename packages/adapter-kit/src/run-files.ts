import { mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChatContext, ToolRequest } from '@toolbridge/core';
import { writeImageFiles } from './images.js';
import { imagesOf } from './text.js';

/**
 * The files of one spawned run, made on first use in the call's scratch directory (0700, removed
 * by core after the call however it ends): the request's images as files (`image-1.png`, … in
 * `imagesOf()` order, in the run's own directory), any other private file (0600) a CLI wants by
 * path, and that directory of the run's own for a tool that must not see another run's files.
 * Core's JSON repair turn runs in the same scratch directory with the same images, so a run's
 * images cannot live at fixed names in the scratch directory itself.
 */
export interface RunFiles {
  scratch(): Promise<string>;
  runDir(): Promise<string>;
  /** The request's images as files in the run's directory (inside the scratch directory); nothing is made when there are none. */
  images(): Promise<string[]>;
  /** A file in the scratch directory (schema, system prompt, policy, MCP config): never argv for what may hold secrets. */
  write(name: string, content: string): Promise<string>;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

export function runFiles(request: ToolRequest, ctx: Pick<ChatContext, 'scratchDir'>): RunFiles {
  const scratch = once(() => ctx.scratchDir());
  const runDir = once(async () => mkdtemp(path.join(await scratch(), 'run-')));
  const images = once(async () => {
    const list = imagesOf(request.messages);
    return list.length ? writeImageFiles(list, await runDir()) : [];
  });
  const write = async (name: string, content: string) => {
    const file = path.join(await scratch(), name);
    // Written again, not added to, by the repair turn.
    await writeFile(file, content, { mode: 0o600 });
    return file;
  };
  return { scratch, runDir, images, write };
}
