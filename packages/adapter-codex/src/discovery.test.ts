import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createCallContext } from '@toolbridge/core/runtime';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from './adapter.js';
import { loginStatusAuth, providerAuth } from './auth.js';
import { parseCatalog } from './models.js';
import { chooseModels } from './detect.js';
import { capture, fakeCodexEnv, REPLAYS } from './testing/fake-codex.js';
import { readCodexUserConfig } from './user-config.js';

/** Models and login state from Codex's catalog (`codex debug models`, replayed) and the user's config files. */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function home(files: Record<string, string>): Promise<string> {
  const t = await makeTempDir('toolbridge-codex-cfg-');
  cleanups.push(t.cleanup);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(t.dir, name), text);
  return t.dir;
}

const catalog = parseCatalog(capture('codex-debug-models.json'))!;
const VISIBLE = [
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
const MOCK_PROVIDER =
  'model_provider = "mock"\nmodel = "mock-model"\n[model_providers.mock]\nname = "Mock"\nbase_url = "http://127.0.0.1:1/v1"\nenv_key = "MOCK_API_KEY"\n';

describe('user config', () => {
  it('layers a profile over config.toml, and reads the selected provider', async () => {
    const dir = await home({ 'config.toml': MOCK_PROVIDER, 'fast.config.toml': 'model = "fast-model"\n' });
    expect(await readCodexUserConfig(dir)).toMatchObject({
      model: 'mock-model',
      provider: { id: 'mock', name: 'Mock', custom: true, envKey: 'MOCK_API_KEY', requiresOpenaiAuth: false, hasBearerToken: false },
    });
    expect(await readCodexUserConfig(dir, 'fast')).toMatchObject({ model: 'fast-model', provider: { id: 'mock' } });
    expect((await readCodexUserConfig(dir, 'missing')).model).toBe('mock-model');
  });

  it('no config is OpenAI with its login; a broken file is reported, never thrown', async () => {
    expect(await readCodexUserConfig(await home({}))).toEqual({
      provider: { id: 'openai', custom: false, requiresOpenaiAuth: true, hasBearerToken: false },
      files: [],
    });
    const broken = await readCodexUserConfig(await home({ 'config.toml': 'model = \n' }));
    expect(broken.error).toMatch(/config\.toml is not valid TOML/);
  });
});

describe('models', () => {
  const user = { provider: { id: 'openai', custom: false, requiresOpenaiAuth: true, hasBearerToken: false }, files: [] };

  it('OpenAI: the visible catalog in Codex’s order; the default from codexModel, the config, else the catalog’s first', () => {
    expect(chooseModels(undefined, user, catalog)).toEqual({ models: VISIBLE, defaultModel: 'gpt-6.1-sol', vision: true });
    expect(chooseModels(undefined, { ...user, model: 'gpt-5.5' }, catalog).defaultModel).toBe('gpt-5.5');
    expect(chooseModels('gpt-6-luna', { ...user, model: 'gpt-5.5' }, catalog).defaultModel).toBe('gpt-6-luna');
    // A model the catalog does not list is still the default, listed first.
    expect(chooseModels('o3-custom', user, catalog).models).toEqual(['o3-custom', ...VISIBLE]);
  });

  it('a custom or local provider lists only what its config names', () => {
    const custom = { ...user, model: 'mock-model', provider: { ...user.provider, id: 'mock', custom: true, requiresOpenaiAuth: false } };
    expect(chooseModels(undefined, custom, catalog)).toEqual({ models: ['mock-model'], defaultModel: 'mock-model', vision: true });
    expect(chooseModels(undefined, { ...custom, model: undefined }, catalog)).toEqual({ models: [], vision: true });
  });

  it('vision follows the default model’s input modalities', () => {
    const textOnly = parseCatalog(
      JSON.stringify({ models: [{ slug: 'm', visibility: 'list', priority: 1, input_modalities: ['text'] }] }),
    )!;
    expect(chooseModels(undefined, user, textOnly)).toEqual({ models: ['m'], defaultModel: 'm', vision: false });
  });

  it('detect runs `codex debug models` (replayed) beside `--version`', async () => {
    const fake = await fakeCodexEnv({ version: REPLAYS.version, debugModels: REPLAYS.debugModels });
    cleanups.push(fake.cleanup);
    const { ctx, done } = createCallContext({ config: {}, env: fake.env, toolId: 'codex' }, { timeoutMs: 30_000 });
    cleanups.push(async () => done());
    expect(await createCodexAdapter().detect(ctx)).toEqual({
      available: true,
      version: '0.169.0',
      models: VISIBLE,
      defaultModel: 'gpt-6.1-sol',
      capabilities: ['vision'],
    });
  });
});

describe('login state', () => {
  it('a custom provider’s key variable decides, named but never shown', async () => {
    const user = await readCodexUserConfig(await home({ 'config.toml': MOCK_PROVIDER }));
    expect(providerAuth(user, { MOCK_API_KEY: 'sk-secret' })).toEqual({
      authenticated: true,
      method: 'env:MOCK_API_KEY',
      detail: `Codex's provider "Mock" takes its key from $MOCK_API_KEY`,
    });
    expect(JSON.stringify(providerAuth(user, { MOCK_API_KEY: 'sk-secret' }))).not.toContain('sk-secret');
    expect(providerAuth(user, {})).toEqual({
      authenticated: false,
      detail: `Codex's provider "Mock" reads its key from $MOCK_API_KEY, which is not set`,
    });
  });

  it('local providers need no key; requires_openai_auth and OpenAI leave it to `codex login status`', async () => {
    const ollama = await readCodexUserConfig(await home({ 'config.toml': 'model_provider = "ollama"\n' }));
    expect(providerAuth(ollama, {})).toMatchObject({ authenticated: true, method: 'provider:ollama' });
    const gateway = await readCodexUserConfig(await home({ 'config.toml': `${MOCK_PROVIDER}requires_openai_auth = true\n` }));
    expect(providerAuth(gateway, { MOCK_API_KEY: 'x' })).toBeUndefined();
    expect(providerAuth(await readCodexUserConfig(await home({})), {})).toBeUndefined();
    const unknown = await readCodexUserConfig(await home({ 'config.toml': 'model_provider = "nowhere"\n' }));
    expect(providerAuth(unknown, {})).toEqual({
      authenticated: false,
      detail: `Codex's config selects model_provider "nowhere", which it does not define`,
    });
  });

  it('a key in CODEX_API_KEY counts though `login status` says "Not logged in"', () => {
    const status = capture('codex-login-status.err');
    expect(loginStatusAuth(status, 1, {})).toMatchObject({ authenticated: false });
    expect(loginStatusAuth(status, 1, { CODEX_API_KEY: 'sk-x' })).toEqual({
      authenticated: true,
      method: 'env:CODEX_API_KEY',
      detail: 'an OpenAI API key in $CODEX_API_KEY',
    });
  });

  it('checkAuth reads the config and does not ask `codex login status` for a custom provider', async () => {
    const fake = await fakeCodexEnv({ version: REPLAYS.version, loginStatus: REPLAYS.notLoggedIn });
    cleanups.push(fake.cleanup);
    await mkdir(fake.codexHome, { recursive: true });
    await writeFile(path.join(fake.codexHome, 'config.toml'), MOCK_PROVIDER);
    const { ctx, done } = createCallContext(
      { config: {}, env: { ...fake.env, MOCK_API_KEY: 'k' }, toolId: 'codex' },
      { timeoutMs: 30_000 },
    );
    cleanups.push(async () => done());
    expect(await createCodexAdapter().checkAuth!(ctx)).toMatchObject({ authenticated: true, method: 'env:MOCK_API_KEY' });
  });
});
