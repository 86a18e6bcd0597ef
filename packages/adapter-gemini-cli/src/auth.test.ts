import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { checkGeminiAuth, manualLogin, selectedAuthType } from './auth.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A throwaway HOME with `~/.gemini/<file>` as given. */
async function home(files: Record<string, unknown> = {}): Promise<string> {
  const tmp = await makeTempDir('toolbridge-gemini-auth-');
  cleanups.push(tmp.cleanup);
  await mkdir(path.join(tmp.dir, '.gemini'), { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await writeFile(path.join(tmp.dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return tmp.dir;
}

const selected = (type: string) => ({ '.gemini/settings.json': { security: { auth: { selectedType: type } } } });

describe('Gemini sign-in state, offline', () => {
  it('is logged out with nothing configured', async () => {
    expect(await checkGeminiAuth({ HOME: await home() })).toEqual({
      authenticated: false,
      detail: expect.stringMatching(/no sign-in method/),
    });
  });

  it('an API key in the environment or in ~/.gemini/.env', async () => {
    expect(await checkGeminiAuth({ HOME: await home(), GEMINI_API_KEY: 'k' })).toEqual({ authenticated: true, method: 'gemini-api-key' });
    expect(await checkGeminiAuth({ HOME: await home({ '.gemini/.env': 'GEMINI_API_KEY="k"\n' }) })).toMatchObject({ authenticated: true });
  });

  it('the API-key method without a key is logged out', async () => {
    expect(await checkGeminiAuth({ HOME: await home(selected('gemini-api-key')) })).toMatchObject({
      authenticated: false,
      detail: expect.stringMatching(/GEMINI_API_KEY is not set/),
    });
  });

  it('a Google login needs a stored refresh token', async () => {
    expect(await checkGeminiAuth({ HOME: await home(selected('oauth-personal')) })).toMatchObject({ authenticated: false });
    const h = await home({ ...selected('oauth-personal'), '.gemini/oauth_creds.json': { access_token: 'a', refresh_token: '1//r' } });
    expect(await checkGeminiAuth({ HOME: h })).toEqual({ authenticated: true, method: 'oauth-personal' });
  });

  it('Vertex AI needs a project and location, or a Google API key', async () => {
    const h = await home();
    expect(await checkGeminiAuth({ HOME: h, GOOGLE_GENAI_USE_VERTEXAI: 'true' })).toMatchObject({ authenticated: false });
    expect(await checkGeminiAuth({ HOME: h, GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_API_KEY: 'k' })).toEqual({
      authenticated: true,
      method: 'vertex-ai',
    });
  });

  it('a base URL without a selected method is the gateway headless Gemini refuses', async () => {
    const env = { HOME: await home(), GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:1', GEMINI_API_KEY: 'k' };
    expect(await checkGeminiAuth(env)).toMatchObject({ authenticated: false, detail: expect.stringMatching(/selectedType/) });
  });

  it('reads settings with comments, and respects GEMINI_CLI_HOME', async () => {
    const h = await home({ '.gemini/settings.json': '// mine\n{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' });
    expect(selectedAuthType(undefined, {})).toBeUndefined();
    expect(
      await checkGeminiAuth({ HOME: '/nonexistent', GEMINI_CLI_HOME: h, GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: 'http://x' }),
    ).toEqual({
      authenticated: true,
      method: 'gemini-api-key',
    });
  });

  it('starting a login is manual, with the terminal command and the key alternative', () => {
    const r = manualLogin('gemini', { authenticated: false });
    expect(r).toMatchObject({ toolId: 'gemini', status: 'manual', authenticated: false, command: 'gemini', output: '' });
    expect(r.instructions).toMatch(/GEMINI_API_KEY/);
    expect(manualLogin('gemini', { authenticated: true, method: 'gemini-api-key' })).toMatchObject({ status: 'already_authenticated' });
  });
});
