import { describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createCallContext } from '@toolbridge/core/runtime';
import { makeTempDir, pathWith, realCliBinDir } from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from './adapter.js';
import { startMockResponsesServer } from './testing/mock-responses-server.js';

/** The real, pinned `codex`: its own catalog (`codex debug models`, offline) and config files, as discovery reads them. */

describe('real codex 0.169.0: discovery and login state from its catalog and config', () => {
  it('lists the visible catalog in Codex’s order for OpenAI, the default from config.toml, its profile or the catalog; login from the provider setup', async () => {
    const home = await makeTempDir('toolbridge-codex-disc-');
    const ch = path.join(home.dir, '.codex');
    await mkdir(ch, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: pathWith(realCliBinDir('codex')),
      HOME: home.dir,
      CODEX_HOME: ch,
      TMPDIR: process.env.TMPDIR ?? '/tmp',
    };
    const adapter = createCodexAdapter();
    const call = (config = {}, extraEnv: NodeJS.ProcessEnv = {}) =>
      createCallContext({ config, env: { ...env, ...extraEnv }, toolId: 'codex' }, { timeoutMs: 30_000 });
    const catalog = [
      'gpt-6.1-sol',
      'gpt-6-astra',
      'gpt-6-sol',
      'gpt-6-luna',
      'gpt-5.6-sol',
      'gpt-6.1-terra',
      'gpt-5.6-terra',
      'gpt-5.6-luna',
      'gpt-5.5',
    ];
    try {
      // No config: OpenAI's catalog (hidden models left out), Codex's own default first.
      let c = call();
      expect(await adapter.detect(c.ctx)).toEqual({
        available: true,
        version: '0.169.0',
        models: catalog,
        defaultModel: 'gpt-6.1-sol',
        capabilities: ['vision'],
      });
      expect(await adapter.checkAuth!(c.ctx)).toMatchObject({ authenticated: false });
      c.done();
      // `codex exec` sends a key in CODEX_API_KEY although `login status` says "Not logged in".
      c = call({}, { CODEX_API_KEY: 'sk-test' });
      expect(await adapter.checkAuth!(c.ctx)).toEqual({
        authenticated: true,
        method: 'env:CODEX_API_KEY',
        detail: 'an OpenAI API key in $CODEX_API_KEY',
      });
      c.done();
      await writeFile(path.join(ch, 'config.toml'), 'model = "gpt-5.5"\n');
      await writeFile(path.join(ch, 'fast.config.toml'), 'model = "gpt-6-luna"\n');
      c = call();
      expect(await adapter.detect(c.ctx)).toMatchObject({ models: catalog, defaultModel: 'gpt-5.5' });
      c.done();
      c = call({ codexProfile: 'fast' });
      expect(await adapter.detect(c.ctx)).toMatchObject({ models: catalog, defaultModel: 'gpt-6-luna' });
      c.done();
      // A custom provider whose key variable is not set cannot answer.
      const mock = await startMockResponsesServer();
      await mock.writeCodexConfig(ch);
      await mock.close();
      c = call();
      expect(await adapter.checkAuth!(c.ctx)).toEqual({
        authenticated: false,
        detail: `Codex's provider "mock" reads its key from $MOCK_API_KEY, which is not set`,
      });
      c.done();
    } finally {
      await home.cleanup();
    }
  }, 60_000);
});
