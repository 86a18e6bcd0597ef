import { afterEach, describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, type UsageLimits } from '@toolbridge/core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
    // Far enough ahead that a loaded machine cannot reach the reset before the chat is sent.
    const used = limits(0, 4000);
    const reset = Date.parse(used.windows!.five_hour!.resetsAt!);
    const bridge = await bridgeWith(memoryAdapter('a', { usageLimits: used }));
    const answer = bridge.request('/chat', { method: 'POST', json: { providers: ['a'], waitForQuota: 60_000, ...hello } });
    let waiting: Array<{ id: string; providers: string[]; until: string }> = [];
    for (let i = 0; i < 100 && waiting.length === 0; i++) {
      waiting = ((await (await bridge.request('/queue')).json()) as { waiting: typeof waiting }).waiting;
      if (waiting.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(waiting).toEqual([{ id: expect.any(String), providers: ['a'], until: expect.any(String) }]);
    expect(Date.parse(waiting[0]!.until)).toBeGreaterThan(reset);
    expect(Date.parse(waiting[0]!.until)).toBeLessThanOrEqual(reset + 2000);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(Date.now()).toBeGreaterThan(reset);
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

describe('GET /usage and GET /usage/windows', () => {
  it('every finished chat is counted by tool, day and model, and survives a restart', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'usage-'));
    const tools = () => [
      memoryAdapter('good', { usageLimits: limits(60) }),
      memoryAdapter('bad', { fail: () => new ProviderExecutionError('crashed', { toolId: 'bad' }) }),
    ];
    const first = await startTestBridge(tools(), { toolbridgeOptions: { usage: { dir } } });
    bridges.push(first);
    await first.request('/chat', { method: 'POST', json: { providers: ['bad', 'good'], ...hello } });
    await first.request('/chat/good', { method: 'POST', json: hello });
    await first.close();
    bridges.pop();

    const bridge = await startTestBridge(tools(), { toolbridgeOptions: { usage: { dir } } });
    bridges.push(bridge);
    const res = await bridge.request('/usage');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { since: string; until: string; groupBy: string; groups: Array<Record<string, unknown>> };
    expect(body.groupBy).toBe('tool');
    expect(Date.parse(body.until) - Date.parse(body.since)).toBe(7 * 86_400_000);
    expect(body.groups).toEqual([
      { key: 'bad', chats: 1, succeeded: 0, failed: 1, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      {
        key: 'good',
        chats: 2,
        succeeded: 2,
        failed: 0,
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        cachedInputTokens: 0,
      },
    ]);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const byDay = (await (await bridge.request('/usage?groupBy=day')).json()) as { groups: Array<{ key: string; chats: number }> };
    // All three chats ran today (or, for a run across midnight, some yesterday: UTC days).
    expect(byDay.groups.reduce((n, g) => n + g.chats, 0)).toBe(3);
    for (const g of byDay.groups) expect([yesterday, today]).toContain(g.key);
    const past = (await (await bridge.request('/usage?since=2020-01-01T00:00:00Z&until=2020-01-02T00:00:00Z')).json()) as {
      groups: unknown[];
    };
    expect(past.groups).toEqual([]);
  });

  it('a bad query is a 400 with the envelope', async () => {
    const bridge = await bridgeWith(memoryAdapter('a'));
    for (const q of ['groupBy=week', 'since=yesterday', 'since=2026-02-01&until=2026-01-01', 'since=2026-01-01&since=2026-01-02']) {
      const res = await bridge.request(`/usage?${q}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    expect((await bridge.request('/usage/windows?since=soon')).status).toBe(400);
    expect((await bridge.request('/usage/windows?toolId=nope')).status).toBe(404);
  });

  it('keeps a snapshot each time a tool’s windows change', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'usage-'));
    const bridge = await startTestBridge([memoryAdapter('w', { usageLimits: limits(70) }), memoryAdapter('none')], {
      toolbridgeOptions: { usage: { dir } },
    });
    bridges.push(bridge);
    await bridge.request('/health');
    await bridge.request('/health?refresh=true'); // the same windows: no new snapshot
    const res = await bridge.request('/usage/windows?toolId=w');
    expect(res.status).toBe(200);
    const { snapshots } = (await res.json()) as { snapshots: Array<{ toolId: string; at: string; windows: Record<string, unknown> }> };
    expect(snapshots).toEqual([
      { toolId: 'w', at: expect.any(String), windows: { five_hour: expect.objectContaining({ remainingPercentage: 70 }) } },
    ]);
    const later = (await (await bridge.request(`/usage/windows?since=${new Date(Date.now() + 60_000).toISOString()}`)).json()) as {
      snapshots: unknown[];
    };
    expect(later.snapshots).toEqual([]);
  });
});
