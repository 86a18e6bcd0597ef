import { readFile } from 'node:fs/promises';

/**
 * A CLI's JSON settings or credentials file, which may carry `//` comment lines (Gemini CLI's and
 * Qwen Code's settings do); undefined when absent, unreadable or not a JSON object.
 */
export async function readJsonFile(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  for (const candidate of [text, text.replace(/^\s*\/\/.*$/gm, '')]) {
    try {
      const v = JSON.parse(candidate);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // try without comments
    }
  }
  return undefined;
}

/** The variables of a `.env` file a CLI loads (`KEY=value`, `export KEY=value`, quotes removed); {} when absent. */
export async function readDotEnv(file: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) out[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}
