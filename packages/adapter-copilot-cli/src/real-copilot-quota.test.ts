import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type CallContext } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { cliCacheDir, makeTempDir, pathWith, processesWithEnv, REAL_CLIS, realCliBinDir, waitFor } from '@toolbridge/test-suite/kit';
import { createCopilotCliAdapter } from './adapter.js';
import { USER_CACHE_FILE } from './quota.js';
import { startMockOpenAIServer, type MockOpenAIServer, type PremiumQuota } from './testing/mock-openai-server.js';

/**
 * The premium-request quota of the real, pinned `copilot` in GitHub mode: signed in with
 * `copilot login --host <mock>` (GitHub's device flow against a mock of github.com and the
 * Copilot API), which answers `copilot_internal/user` with `quota_snapshots`. Copilot keeps that
 * answer in its cache directory; health reads it offline.
 */

let mock: MockOpenAIServer;
let registry: ToolRegistry;
let home: string;
let env: NodeJS.ProcessEnv;
let cleanup: () => Promise<void>;

const inDays = (days: number) => Math.floor(Date.now() / 1000) + days * 86_400;
const quota = (percentLeft: number, resetAt: number): PremiumQuota => ({
  entitlement: 300,
  remaining: (300 * percentLeft) / 100,
  percent_remaining: percentLeft,
  quota_reset_at: resetAt,
});
const userReads = () => mock.requests.filter((r) => r.url.startsWith('/copilot_internal/user')).length;

beforeAll(async () => {
  mock = await startMockOpenAIServer();
  const tmp = await makeTempDir('toolbridge-copilot-quota-');
  cleanup = tmp.cleanup;
  home = tmp.dir;
  // No system keychain here: without this Copilot discards the token it was given.
  await mkdir(path.join(home, '.copilot'));
  await writeFile(path.join(home, '.copilot', 'settings.json'), JSON.stringify({ storeTokenPlaintext: true }));
  env = {
    PATH: pathWith(realCliBinDir('copilot')),
    HOME: home,
    COPILOT_PKG_CACHE_HOME: path.join(cliCacheDir(), `copilot-pkg-cache@${REAL_CLIS.copilot.version}`),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  registry = createRegistry({ adapters: [createCopilotCliAdapter({ warm: false, loginArgs: ['--host', mock.url] })], env });
});

afterAll(async () => {
  await registry?.close();
  await mock?.close();
  await cleanup?.();
});

describe('real copilot 1.0.102: premium-request quota (GitHub mode against a mock github.com)', () => {
  it('health reports the allowance GitHub gave Copilot at sign-in: percent used, left and the reset', async () => {
    expect((await registry.health('copilot', { refresh: true })).usageLimits).toMatchObject({ status: 'unavailable' });
    const resetAt = inDays(5);
    mock.premium = quota(41, resetAt);
    mock.pendingPolls = 0;
    const adapter = createCopilotCliAdapter({ loginArgs: ['--host', mock.url] });
    const ctx: CallContext = { config: {}, env, signal: AbortSignal.timeout(60_000) };
    try {
      expect(await adapter.startAuth!(ctx)).toMatchObject({ status: 'started' });
      await waitFor(async () => (await adapter.checkAuth!(ctx)).authenticated, 30_000, 'the login to finish');
    } finally {
      await adapter.dispose!();
    }
    await waitFor(() => processesWithEnv(`HOME=${home}`).length === 0, 10_000, 'copilot login to exit');

    const health = await registry.health('copilot', { refresh: true });
    expect(health).toMatchObject({ status: 'healthy', authenticated: true, authMethod: 'github' });
    expect(health.usageLimits).toEqual({
      status: 'available',
      source: 'copilot_user_cache',
      plan: 'individual_pro',
      windows: { premium_requests: { usedPercentage: 59, remainingPercentage: 41, resetsAt: new Date(resetAt * 1000).toISOString() } },
      observedAt: expect.any(String),
    });
  }, 120_000);

  it('a chat that starts once Copilot’s copy is old fetches the allowance again; the next health has it', async () => {
    const resetAt = inDays(4);
    mock.premium = quota(12.5, resetAt);
    // An hour passes: Copilot's copy of the answer is now too old for it to start a chat on.
    const file = path.join(home, '.cache', 'copilot', USER_CACHE_FILE);
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await writeFile(file, (await readFile(file, 'utf8')).replace(/"retrievedAt":\s*"[^"]*"/g, `"retrievedAt": "${hourAgo}"`));
    const before = userReads();

    const result = await registry.chat('copilot', { messages: [{ role: 'user', content: 'say hello' }] }, { timeoutMs: 90_000 });
    expect(result.message.content).toBe('Hello from mock');
    expect(result.metadata?.premiumRequests).toBe(1);
    expect(userReads()).toBeGreaterThan(before);

    const health = await registry.health('copilot', { refresh: true });
    expect(health.usageLimits?.windows).toEqual({
      premium_requests: { usedPercentage: 87.5, remainingPercentage: 12.5, resetsAt: new Date(resetAt * 1000).toISOString() },
    });
  }, 120_000);
});
