import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, pathWith, realCliBinDir } from '@toolbridge/test-suite/kit';
import { node22Binary } from '../../../../scripts/node22.mjs';

/** The pinned Node 22 the project installs (`pnpm clis`); Qwen Code does not run on Node 20. */
export function qwenNode(): string {
  const node = node22Binary();
  if (!node) throw new Error('the pinned Node 22 is not installed; run "pnpm clis" (pnpm test does it)');
  return node;
}

export interface RealQwenHome {
  /** The throwaway HOME; Qwen Code's own dir is `QWEN_HOME` inside it. */
  home: string;
  qwenHome: string;
  /** PATH with the pinned `qwen` (the Node on PATH stays the host's: the adapter is told `node`). */
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

/**
 * A hermetic home for the real, pinned `qwen` against a mock OpenAI server: a throwaway HOME and
 * QWEN_HOME whose settings select the `openai` sign-in and `mock-model`, the key and base URL in
 * the environment (never argv), so nothing of the user's ~/.qwen is read or written.
 */
export async function realQwenHome(baseURL: string, settings: Record<string, unknown> = {}): Promise<RealQwenHome> {
  const tmp = await makeTempDir('toolbridge-qwen-real-');
  const qwenHome = path.join(tmp.dir, '.qwen');
  await mkdir(qwenHome, { recursive: true });
  await writeFile(
    path.join(qwenHome, 'settings.json'),
    // `$version` as Qwen Code writes it: without it, its first start rewrites the file (a migration),
    // which changes the warm processes' fingerprint once.
    JSON.stringify({ security: { auth: { selectedType: 'openai' } }, model: { name: 'mock-model' }, ...settings, $version: 4 }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: pathWith(realCliBinDir('qwen-code')),
    HOME: tmp.dir,
    QWEN_HOME: qwenHome,
    OPENAI_API_KEY: 'mock-key',
    OPENAI_BASE_URL: baseURL,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    TOOLBRIDGE_QWEN_NODE: qwenNode(),
  };
  return { home: tmp.dir, qwenHome, env, cleanup: tmp.cleanup };
}
