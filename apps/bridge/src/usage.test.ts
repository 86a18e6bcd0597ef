import { afterEach, describe, expect, it } from '@jest/globals';
import type { UsageLimits } from '@toolbridge/core';
import { memoryAdapter } from './testing/adapters.js';
import { startTestBridge, type TestBridge } from './testing/harness.js';

const hello = { messages: [{ role: 'user', content: 'Say hello' }] };
const bridges: TestBridge[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) await b.close();
});

function limits(remaining: number, resetsInMs = 3_600_000): UsageLimits {
  const resetsAt = new Date(Date.now() + resetsInMs).toISOString();
  return {
    status: 'available',
    source: 'local_session',
    windows: { five_hour: { usedPercentage: 100 - remaining, remainingPercentage: remaining, resetsAt } },
  };
}

async function bridgeWith(...adapters: Parameters<typeof startTestBridge>[0]) {
  const bridge = await startTestBridge(adapters);
  bridges.push(bridge);
  await bridge.request('/health');
  return bridge;
}

describe('POST /chat route and waitForQuota', () => {
  it('route "headroom" tries the tool with the most headroom first and says so', async () => {
    const bridge = await bridgeWith(
      memoryAdapter('low', { usageLimits: limits(10) }),
      memoryAdapter('high', { usageLimits: limits(80) }),
      memoryAdapter('none'),
    );
    const res = await bridge.request('/chat', {
      method: 'POST',
      json: { providers: ['low', 'none', 'high'], route: 'headroom', ...hello },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { toolId: string; route: unknown };
    expect(body.toolId).toBe('high');
    expect(body.route).toEqual({ policy: 'headroom', order: ['high', 'none', 'low'] });
    const plain = (await (await bridge.request('/chat', { method: 'POST', json: { providers: ['low', 'high'], ...hello } })).json()) as {
      route: unknown;
    };
    expect(plain.route).toEqual({ policy: 'in-order', order: ['low', 'high'] });
  });

  it('a bad route or waitForQuota is a 400 with the envelope', async () => {
    const bridge = await bridgeWith(memoryAdapter('a'));
    for (const extra of [{ route: 'cheapest' }, { waitForQuota: 3_600_001 }, { waitForQuota: -1 }, { waitForQuota: 'soon' }]) {
      const res = await bridge.request('/chat', { method: 'POST', json: { providers: ['a'], ...extra, ...hello } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
  });

  it('waits for a window that resets within waitForQuota, listed in GET /queue, then answers', async () => {
    const bridge = await bridgeWith(memoryAdapter('a', { usageLimits: limits(0, 1500) }));
    const started = Date.now();
    const answer = bridge.request('/chat', { method: 'POST', json: { providers: ['a'], waitForQuota: 60_000, ...hello } });
    let waiting: Array<{ id: string; providers: string[]; until: string }> = [];
    for (let i = 0; i < 50 && waiting.length === 0; i++) {
      waiting = ((await (await bridge.request('/queue')).json()) as { waiting: typeof waiting }).waiting;
      if (waiting.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(waiting).toEqual([{ id: expect.any(String), providers: ['a'], until: expect.any(String) }]);
    expect(Date.parse(waiting[0]!.until)).toBeLessThanOrEqual(started + 1500 + 2000 + 100);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(Date.now()).toBeGreaterThanOrEqual(started + 1500);
    expect(((await (await bridge.request('/queue')).json()) as { waiting: unknown[] }).waiting).toEqual([]);
  });

  it('a reset beyond waitForQuota is today’s 429 with resetsAt and Retry-After', async () => {
    const bridge = await bridgeWith(memoryAdapter('a', { usageLimits: limits(0, 600_000) }));
    const res = await bridge.request('/chat', { method: 'POST', json: { providers: ['a'], waitForQuota: 60_000, ...hello } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(500);
    const body = (await res.json()) as { error: { code: string; resetsAt: string } };
    expect(body.error.code).toBe('quota_exceeded');
    expect(Date.parse(body.error.resetsAt)).toBeGreaterThan(Date.now() + 500_000);
  });

  it('a waiting chat ends at once when its client goes away', async () => {
    const bridge = await bridgeWith(memoryAdapter('a', { usageLimits: limits(0, 600_000) }));
    const client = new AbortController();
    const answer = bridge
      .request('/chat', { method: 'POST', json: { providers: ['a'], waitForQuota: 3_600_000, ...hello }, signal: client.signal })
      .catch(() => 'gone');
    const queued = async () => ((await (await bridge.request('/queue')).json()) as { waiting: unknown[] }).waiting.length;
    for (let i = 0; i < 50 && (await queued()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await queued()).toBe(1);
    client.abort();
    expect(await answer).toBe('gone');
    for (let i = 0; i < 50 && (await queued()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await queued()).toBe(0);
  });
});
