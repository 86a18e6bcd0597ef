import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startMockChatGptBackend, type MockChatGptBackend, type WhamAnswer, type WhamUsage } from './testing/mock-chatgpt-backend.js';
import { startRealCodex, type RealCodex } from './testing/real-codex.js';

/**
 * Usage windows read live by the real `codex app-server` (`account/rateLimits/read`), which
 * fetches them from a mock ChatGPT backend (`chatgpt_base_url` → 127.0.0.1) under a fake ChatGPT
 * login; chats still go to the mock Responses API (a custom provider with its key in the
 * environment). No chat runs, so no session log holds a window.
 */

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

const now = () => Math.floor(Date.now() / 1000);
function usage(primaryUsed: number, secondaryUsed: number): WhamUsage {
  return {
    plan_type: 'pro',
    primary: { used_percent: primaryUsed, limit_window_seconds: 18_000, reset_at: now() + 3_600 },
    secondary: { used_percent: secondaryUsed, limit_window_seconds: 604_800, reset_at: now() + 86_400 },
  };
}
const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

async function setUp(login: 'chatgpt' | 'api-key', answer: WhamAnswer): Promise<{ codex: RealCodex; backend: MockChatGptBackend }> {
  const codex = await startRealCodex();
  open.push(codex);
  const backend = await startMockChatGptBackend(answer);
  open.push(backend);
  await (login === 'chatgpt' ? backend.logInWithChatGpt(codex.codexHome) : backend.logInWithApiKey(codex.codexHome));
  return { codex, backend };
}
const healthOf = (codex: RealCodex) => codex.registry.health('codex', { refresh: true });

describe('real codex 0.169.0: rate limits from the app-server (account/rateLimits/read)', () => {
  it('health reports the ChatGPT backend’s windows once the warm server runs, without a session log, read live each time', async () => {
    const first = usage(42, 7);
    const { codex, backend } = await setUp('chatgpt', first);

    // No server yet: health starts none, and reads the (empty) session logs.
    const cold = await healthOf(codex);
    expect(cold.usageLimits).toMatchObject({ status: 'unavailable', source: 'local_session' });
    expect(backend.usageRequests()).toHaveLength(0);
    expect(codex.left()).toEqual([]);

    await codex.registry.prewarm();
    const warm = await healthOf(codex);
    expect(warm).toMatchObject({ status: 'healthy', available: true });
    expect(warm.usageLimits).toEqual({
      status: 'available',
      source: 'app_server',
      plan: 'pro',
      windows: {
        five_hour: { usedPercentage: 42, remainingPercentage: 58, windowMinutes: 300, resetsAt: iso(first.primary!.reset_at) },
        seven_day: { usedPercentage: 7, remainingPercentage: 93, windowMinutes: 10_080, resetsAt: iso(first.secondary!.reset_at) },
      },
      observedAt: expect.any(String),
    });
    expect(existsSync(path.join(codex.codexHome, 'sessions'))).toBe(false);
    // Codex asked with the login's token and account, as it asks chatgpt.com.
    const [read] = backend.usageRequests();
    expect(read!.headers.authorization).toBe(`Bearer ${backend.accessToken}`);
    expect(read!.headers['chatgpt-account-id']).toBe(backend.accountId);

    // The next check reads again: the backend's new numbers, not a cached answer.
    const second = usage(97, 60);
    backend.answer = second;
    const later = await healthOf(codex);
    expect(later.usageLimits?.windows).toEqual({
      five_hour: { usedPercentage: 97, remainingPercentage: 3, windowMinutes: 300, resetsAt: iso(second.primary!.reset_at) },
      seven_day: { usedPercentage: 60, remainingPercentage: 40, windowMinutes: 10_080, resetsAt: iso(second.secondary!.reset_at) },
    });
    expect(Date.parse(later.usageLimits!.observedAt!)).toBeGreaterThan(Date.parse(warm.usageLimits!.observedAt!));
    expect(backend.usageRequests()).toHaveLength(2);
  }, 120_000);

  it('a backend that fails: health stays healthy, falls back to the session logs and says why', async () => {
    const { codex, backend } = await setUp('chatgpt', { status: 500, body: { detail: 'SECRET-BACKEND-BODY-2291' } });
    await codex.registry.prewarm();
    const health = await healthOf(codex);
    expect(health.status).toBe('healthy');
    expect(health.usageLimits).toMatchObject({ status: 'unavailable', source: 'local_session' });
    expect(health.usageLimits!.reason).toContain("Codex's app-server could not read them from the ChatGPT backend");
    // The backend's answer and address stay out of health.
    expect(JSON.stringify(health)).not.toContain('SECRET-BACKEND-BODY');
    expect(JSON.stringify(health)).not.toContain(backend.baseUrl);
    expect(backend.usageRequests().length).toBeGreaterThan(0);
  }, 120_000);

  it('an API-key login has no windows to read: no windows and no error, and the backend is never asked', async () => {
    const { codex, backend } = await setUp('api-key', usage(42, 7));
    await codex.registry.prewarm();
    expect(codex.left().length).toBeGreaterThan(0); // the warm server runs, and is asked
    const health = await healthOf(codex);
    expect(health).toMatchObject({ status: 'healthy', available: true });
    expect(health.usageLimits).toMatchObject({ status: 'unavailable', source: 'local_session' });
    expect(health.usageLimits!.windows).toBeUndefined();
    expect(health.usageLimits!.reason).not.toContain('app-server');
    expect(backend.usageRequests()).toHaveLength(0);
  }, 120_000);
});
