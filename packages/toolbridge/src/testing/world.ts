import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, pathWithout } from '@toolbridge/test-suite';
import { writeFakeClis, type FakeCli, type FakeClis } from './fake-clis.js';

export interface World {
  env: NodeJS.ProcessEnv;
  clis: FakeClis;
  cleanup(): Promise<void>;
}

/**
 * A throwaway machine: fake agent CLIs first on PATH (only Node besides them),
 * a fresh HOME with the tools' config dirs inside it, and Ollama at `ollamaUrl`.
 */
export async function makeWorld(ollamaUrl: string, bins?: readonly FakeCli[]): Promise<World> {
  const tmp = await makeTempDir('toolbridge-umbrella-');
  const binDir = path.join(tmp.dir, 'bin');
  const home = path.join(tmp.dir, 'home');
  await mkdir(home, { recursive: true });
  const clis = await writeFakeClis(binDir, bins);
  const env: NodeJS.ProcessEnv = {
    PATH: [binDir, pathWithout()].join(path.delimiter),
    HOME: home,
    CODEX_HOME: path.join(home, '.codex'),
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    TMPDIR: tmp.dir,
    OLLAMA_HOST: ollamaUrl,
  };
  return { env, clis, cleanup: tmp.cleanup };
}
