import { describe, expect, it } from '@jest/globals';
import { ProviderExecutionError } from '@toolbridge/core';
import { waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { parseAuthStatus } from './auth.js';
import { capture, captureText, readPids, readRecords } from './testing/fake-claude.js';
import { fakeSetups } from './testing/setup.js';

const { setup } = fakeSetups();

const loggedOut = { stdoutFile: capture('claude-auth-status-loggedout.out'), exitCode: 1 };
const loginWaits = { stdoutFile: capture('claude-auth-login-notty.out'), hang: true };
const loginRuns = async (file: string) => (await readRecords(file)).filter((r) => r.argv[0] === 'auth' && r.argv[1] === 'login');

describe('checkAuth', () => {
  it('parses the real auth status captures', async () => {
    expect(parseAuthStatus(await captureText('claude-auth-status-loggedout.out'))).toEqual({
      authenticated: false,
      detail: expect.stringMatching(/claude auth login/),
    });
    expect(parseAuthStatus(await captureText('claude-auth-status-apikey.out'))).toEqual({ authenticated: true, method: 'api_key' });
    expect(parseAuthStatus(await captureText('claude-auth-status-oauthenv.out'))).toEqual({ authenticated: true, method: 'oauth_token' });
    expect(parseAuthStatus('Not logged in. Run claude auth login to authenticate.')).toBeUndefined();
  });

  it('exit 1 when logged out is an answer: health says unauthenticated', async () => {
    const s = await setup({ authStatus: loggedOut });
    const health = await s.registry.health('claude-code');
    expect(health).toMatchObject({ status: 'healthy', authSupported: true, authenticated: false, authStatus: 'unauthenticated' });
    expect((await readRecords(s.recordFile)).find((r) => r.argv[0] === 'auth')!.argv).toEqual(['auth', 'status', '--json']);
  });

  it('unreadable output is a ProviderExecutionError', async () => {
    const s = await setup({ authStatus: { stdout: 'segfault\n', stderr: 'core dumped', exitCode: 139 } });
    const tool = await s.registry.connect('claude-code');
    const error = await tool.checkAuth!().catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toMatch(/exit code 139.*core dumped/);
  });
});

describe('startAuth', () => {
  it('returns the login URL within seconds while the flow stays open; one flow at a time; dispose ends it', async () => {
    const s = await setup({ authStatus: loggedOut, login: loginWaits });
    const tool = await s.registry.connect('claude-code');
    const [a, b] = await Promise.all([tool.startAuth!({ timeoutMs: 10_000 }), tool.startAuth!({ timeoutMs: 10_000 })]);
    const started = [a, b].find((r) => r.status === 'started')!;
    const joined = [a, b].find((r) => r.status === 'in_progress')!;
    expect(started).toMatchObject({
      toolId: 'claude-code',
      authenticated: false,
      command: 'claude auth login',
      url: expect.stringMatching(/^https:\/\/claude\.ai\/oauth\/authorize\?/),
      output: expect.stringContaining("If the browser didn't open, visit:"),
      instructions: expect.stringMatching(/browser/),
    });
    expect(joined).toMatchObject({ url: started.url, command: started.command });
    expect(await tool.startAuth!()).toMatchObject({ status: 'in_progress', url: started.url });
    expect(await loginRuns(s.recordFile)).toHaveLength(1);

    const pids = await readPids(s.pidFile);
    await s.adapter.dispose!();
    expect(await waitForPidsGone(pids)).toEqual([]);
  });

  it('the flow is killed when its lifetime ends; a later call starts a new one', async () => {
    const s = await setup({ authStatus: loggedOut, login: loginWaits }, { loginTtlMs: 1000 });
    const tool = await s.registry.connect('claude-code');
    expect((await tool.startAuth!()).status).toBe('started');
    const [loginPid] = (await readPids(s.pidFile)).slice(-1);
    expect(await waitForPidsGone([loginPid!], 8000)).toEqual([]);
    await waitFor(async () => (await tool.startAuth!()).status === 'started', 8000, 'a new login flow');
    expect(await loginRuns(s.recordFile)).toHaveLength(2);
  });

  it('already logged in: says so without starting a login', async () => {
    const s = await setup({ authStatus: { stdoutFile: capture('claude-auth-status-apikey.out') }, login: loginWaits });
    const tool = await s.registry.connect('claude-code');
    expect(await tool.startAuth!()).toMatchObject({ status: 'already_authenticated', authenticated: true, command: 'claude auth login' });
    expect(await loginRuns(s.recordFile)).toHaveLength(0);
  });

  it('a login that ends without a URL is a ProviderExecutionError and leaves no flow', async () => {
    const s = await setup({ authStatus: loggedOut, login: { stderr: 'Error: cannot open keychain\n', exitCode: 1 } });
    const tool = await s.registry.connect('claude-code');
    const error = await tool.startAuth!().catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toMatch(/cannot open keychain/);
    // Not "in_progress": the failed flow is gone.
    expect(await tool.startAuth!().catch((e) => e)).toBeInstanceOf(ProviderExecutionError);
  });
});
