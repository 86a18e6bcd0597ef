import { open, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The file holding a Gemini CLI session: `<gemini dir>/tmp/<project>/chats/session-<time>-<first 8
 * of the id>.jsonl`, whose first line names the full id. Undefined when no such session is stored.
 */
export async function findSessionFile(geminiDir: string, sessionId: string): Promise<string | undefined> {
  const tmp = path.join(geminiDir, 'tmp');
  const projects = await readdir(tmp).catch(() => [] as string[]);
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`;
  for (const project of projects) {
    const chats = path.join(tmp, project, 'chats');
    for (const name of await readdir(chats).catch(() => [] as string[])) {
      if (!name.startsWith('session-') || !name.endsWith(suffix)) continue;
      const file = path.join(chats, name);
      if ((await firstLine(file)).includes(`"sessionId":"${sessionId}"`)) return file;
    }
  }
  return undefined;
}

async function firstLine(file: string): Promise<string> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return '';
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
  } finally {
    await handle.close();
  }
}
