import { afterEach, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { createCallContext } from '@toolbridge/core/runtime';
import { makeTempDir, pidAlive, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from './adapter.js';
import type { CodexAdapterOptions } from './options.js';
import { capture, fakeCodexEnv, REPLAYS, type FakeCodexScript } from './testing/fake-codex.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const LOGIN_URL = capture('codex-login-notty.err')
  .split('\n')
  .find((l) => l.startsWith('https://auth.openai.com/'))!;

async function setup(script: FakeCodexScript, options: CodexAdapterOptions = {}) {
  const rec = await makeTempDir('toolbridge-codex-rec-');
  cleanups.push(rec.cleanup);
  const pidFile = path.join(rec.dir, 'login.pids');
  const login = script.login && !('js' in script.login) ? script.login : REPLAYS.login;
  const fake = await fakeCodexEnv({ version: REPLAYS.version, ...script, login: { ...login, pidFile } });
  cleanups.push(fake.cleanup);
  const adapter = createCodexAdapter(options);
  cleanups.push(async () => adapter.dispose?.());
  const ctx = (timeoutMs?: number) => {
    const m = createCallContext({ config: {}, env: fake.env, toolId: 'codex' }, { timeoutMs });
    cleanups.push(async () => m.done());
    return m.ctx;
  };
  const loginPids = async () => (await readFile(pidFile, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
  return { adapter, ctx, loginPids };
}

describe('startAuth', () => {
  it('starts `codex login`, answers with its URL while it keeps running, and dispose() ends it', async () => {
    const { adapter, ctx, loginPids } = await setup({ loginStatus: REPLAYS.notLoggedIn });
    const started = await adapter.startAuth!(ctx(10_000));
    expect(started).toMatchObject({
      toolId: 'codex',
      status: 'started',
      authenticated: false,
      command: 'codex login',
      url: LOGIN_URL,
      checkedAt: expect.any(String),
    });
    expect(started.output).toContain('Starting local login server on http://localhost:1455.');
    expect(started.output).toContain(LOGIN_URL);
    expect(started.output).toContain('codex login --device-auth');
    expect(started.output).not.toContain('WARNING');
    expect(started.instructions).toContain(LOGIN_URL);

    const [pid] = await loginPids();
    expect(pid).toBeGreaterThan(0);
    expect(pidAlive(pid!)).toBe(true);

    // One flow at a time: a second call reports the open one and starts nothing.
    const again = await adapter.startAuth!(ctx(10_000));
    expect(again).toMatchObject({ status: 'in_progress', url: LOGIN_URL, output: started.output });
    expect(await loginPids()).toEqual([pid]);

    await adapter.dispose!();
    expect(await waitForPidsGone([pid!], 5000)).toEqual([]);

    // After dispose a new login can start.
    const third = await adapter.startAuth!(ctx(10_000));
    expect(third.status).toBe('started');
    expect(await loginPids()).toHaveLength(2);
  });

  it('ends a login left open after loginTtlMs', async () => {
    const { adapter, ctx, loginPids } = await setup({ loginStatus: REPLAYS.notLoggedIn }, { loginTtlMs: 2000 });
    const started = await adapter.startAuth!(ctx(10_000));
    expect(started.status).toBe('started');
    const [pid] = await loginPids();
    expect(pidAlive(pid!)).toBe(true);
    expect(await waitForPidsGone([pid!], 5000)).toEqual([]);
    // The flow closes once its run has settled (the runner sweeps for stray helpers first, a few ms);
    // then the next call starts a new one rather than reporting a dead one. While it is still
    // closing, startAuth only answers 'in_progress' and starts nothing.
    let next = await adapter.startAuth!(ctx(10_000));
    for (let i = 0; next.status === 'in_progress' && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 50));
      next = await adapter.startAuth!(ctx(10_000));
    }
    expect(next.status).toBe('started');
    expect(await loginPids()).toHaveLength(2);
  });

  it('says so and starts nothing when already logged in', async () => {
    const { adapter, ctx, loginPids } = await setup({ loginStatus: REPLAYS.loggedInChatGpt });
    const r = await adapter.startAuth!(ctx(10_000));
    expect(r).toMatchObject({ toolId: 'codex', status: 'already_authenticated', authenticated: true, command: 'codex login' });
    expect(await loginPids()).toEqual([]);
  });

  it('answers after a bounded wait when the login prints no URL', async () => {
    const { adapter, ctx, loginPids } = await setup(
      { loginStatus: REPLAYS.notLoggedIn, login: { stderr: 'Starting local login server on http://localhost:1455.\n', hang: true } },
      { loginOutputWaitMs: 2000 },
    );
    const r = await adapter.startAuth!(ctx(10_000));
    expect(r.status).toBe('started');
    expect(r.url).toBeUndefined();
    expect(r.output).toBe('Starting local login server on http://localhost:1455.');
    const [pid] = await loginPids();
    expect(pidAlive(pid!)).toBe(true);
    await adapter.dispose!();
    expect(await waitForPidsGone([pid!], 5000)).toEqual([]);
  });

  it('fails with the output when the login exits at once (e.g. its port is taken)', async () => {
    const { adapter, ctx } = await setup({
      loginStatus: REPLAYS.notLoggedIn,
      login: { stderr: 'Error logging in: Address already in use (os error 98)\n', exitCode: 1 },
    });
    const e = await adapter.startAuth!(ctx(10_000)).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e.message).toContain('Address already in use');
    expect(e.toolId).toBe('codex');
  });

  it('kills the login when the call itself times out before the URL', async () => {
    const { adapter, ctx, loginPids } = await setup(
      { loginStatus: REPLAYS.notLoggedIn, login: { hang: true } },
      { loginOutputWaitMs: 10_000 },
    );
    const e = await adapter.startAuth!(ctx(3000)).catch((x) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e.toolId).toBe('codex');
    const pids = await loginPids();
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });
});
