import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { checkCopilotAuth, deviceCodeOf, parseConfigJson } from './auth.js';
import { capture } from './testing/fake-copilot.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function home(files: Record<string, string> = {}): Promise<string> {
  const tmp = await makeTempDir('toolbridge-copilot-auth-');
  cleanups.push(tmp.cleanup);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(tmp.dir, name)), { recursive: true });
    await writeFile(path.join(tmp.dir, name), content);
  }
  return tmp.dir;
}

/** `~/.copilot/config.json` as `copilot login` left it (research capture, token removed). */
const CONFIG = `// User settings belong in settings.json.
// This file is managed automatically.
{
  "loggedInUsers": [{ "host": "https://github.com", "login": "octo", "kind": "user" }],
  "lastLoggedInUser": { "host": "https://github.com", "login": "octo" }
}
`;

describe('Copilot sign-in state, offline', () => {
  it('is logged out with nothing configured', async () => {
    expect(await checkCopilotAuth({ HOME: await home() })).toEqual({
      authenticated: false,
      detail: expect.stringMatching(/copilot login/),
    });
  });

  it('a model provider of your own needs no GitHub sign-in; offline mode without one cannot run', async () => {
    const h = await home();
    expect(await checkCopilotAuth({ HOME: h, COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:1/v1' })).toMatchObject({
      authenticated: true,
      method: 'byok',
    });
    expect(await checkCopilotAuth({ HOME: h, COPILOT_OFFLINE: 'true' })).toMatchObject({ authenticated: false });
  });

  it('a token in the environment, in Copilot’s order', async () => {
    const h = await home();
    expect(await checkCopilotAuth({ HOME: h, GH_TOKEN: 'x', GITHUB_TOKEN: 'y' })).toEqual({
      authenticated: true,
      method: 'token',
      detail: 'GH_TOKEN (not verified)',
    });
  });

  it('a stored `copilot login` (config.json with comment lines), also under COPILOT_HOME', async () => {
    expect(await checkCopilotAuth({ HOME: await home({ '.copilot/config.json': CONFIG }) })).toEqual({
      authenticated: true,
      method: 'github',
      detail: 'octo on https://github.com',
    });
    const other = await home({ 'state/config.json': CONFIG });
    expect(await checkCopilotAuth({ HOME: '/nonexistent', COPILOT_HOME: path.join(other, 'state') })).toMatchObject({
      authenticated: true,
    });
    expect(parseConfigJson('not json')).toBeUndefined();
  });

  it('the GitHub CLI’s login as the last resort', async () => {
    const h = await home({ '.config/gh/hosts.yml': 'github.com:\n    git_protocol: https\n    user: octo\n' });
    expect(await checkCopilotAuth({ HOME: h })).toMatchObject({ authenticated: true, method: 'gh' });
  });

  it('finds the device code of `copilot login`', () => {
    expect(deviceCodeOf(capture('copilot-login-1-login.out'))).toBe('ABCD-1234');
    expect(deviceCodeOf('nothing')).toBeUndefined();
  });
});
