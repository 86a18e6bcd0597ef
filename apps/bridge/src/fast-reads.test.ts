import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@toolbridge/test-suite/kit';
import { memoryAdapter } from './testing/adapters.js';
import { rawRequest, startTestBridge, type TestBridge } from './testing/harness.js';

/**
 * GET /discover, /health and /health/:toolId without a query are answered
 * before Express (fast-reads.ts). With `?refresh=false` the same request goes
 * through Express: the two must be indistinguishable, and every security rule
 * must hold on both.
 */
type Raw = Awaited<ReturnType<typeof rawRequest>>;
const codeOf = (r: Raw) => (JSON.parse(r.body) as { error: { code: string } }).error.code;
const volatile = (body: string) => JSON.stringify(JSON.parse(body), (k, v) => (['uptimeMs', 'latencyMs', 'checkedAt'].includes(k) ? 0 : v));

describe('fast reads', () => {
  const origin = 'http://localhost:5173';
  let open: TestBridge;
  let guarded: TestBridge;
  beforeAll(async () => {
    const usage = {
      status: 'available' as const,
      source: 'local_session',
      windows: { five_hour: { usedPercentage: 10, remainingPercentage: 90, resetsAt: '2099-01-01T00:00:00.000Z' } },
    };
    const tools = () => [memoryAdapter('alpha', { usageLimits: usage }), memoryAdapter('beta', { type: 'runtime', login: 'none' })];
    open = await startTestBridge(tools(), { allowedOrigins: [origin] });
    guarded = await startTestBridge(tools(), { token: 'sesame' });
  });
  afterAll(async () => {
    await open.close();
    await guarded.close();
  });

  it.each(['/discover', '/health', '/health/alpha', '/health/beta'])(
    '%s answers as the Express route does (status, headers, body)',
    async (path) => {
      const fast = await rawRequest(open.url, { path });
      const express = await rawRequest(open.url, { path: `${path}?refresh=false` });
      expect(fast.status).toBe(200);
      expect(express.status).toBe(200);
      for (const h of [
        'content-type',
        'cache-control',
        'x-content-type-options',
        'access-control-allow-origin',
        'vary',
        'x-powered-by',
        'etag',
      ]) {
        expect([h, fast.headers[h]]).toEqual([h, express.headers[h]]);
      }
      expect(volatile(fast.body)).toBe(volatile(express.body));
      const logged = open.logs.filter((l) => l.route === (path.startsWith('/health/') ? '/health/:toolId' : path)).slice(-2);
      expect(logged.map((l) => [l.method, l.status, l.level])).toEqual([
        ['GET', 200, 'info'],
        ['GET', 200, 'info'],
      ]);
    },
  );

  it('an allowed origin gets the same CORS headers; another origin is refused', async () => {
    const fast = await rawRequest(open.url, { path: '/health', headers: { origin } });
    expect(fast.status).toBe(200);
    expect(fast.headers['access-control-allow-origin']).toBe(origin);
    expect(fast.headers.vary).toBe('Origin');
    const foreign = await rawRequest(open.url, { path: '/health', headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(codeOf(foreign)).toBe('forbidden');
  });

  it('a foreign Host and a cross-site navigation are refused', async () => {
    const rebound = await rawRequest(open.url, { path: '/discover', headers: { host: `evil.example:${open.port}` } });
    expect(rebound.status).toBe(403);
    const crossSite = await rawRequest(open.url, { path: '/health/alpha', headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
  });

  it('with a token, these routes need it too', async () => {
    for (const path of ['/discover', '/health', '/health/alpha']) {
      const without = await rawRequest(guarded.url, { path });
      expect([path, without.status, codeOf(without)]).toEqual([path, 401, 'unauthorized']);
      expect(without.headers['www-authenticate']).toBe('Bearer realm="toolbridge"');
      const wrong = await rawRequest(guarded.url, { path, headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const right = await rawRequest(guarded.url, { path, headers: { authorization: 'Bearer sesame' } });
      expect(right.status).toBe(200);
    }
  });

  it('an unknown tool, a body, HEAD and other methods still get the Express answers', async () => {
    const unknown = await rawRequest(open.url, { path: '/health/nope' });
    expect([unknown.status, codeOf(unknown)]).toEqual([404, 'tool_not_found']);
    const withBody = await rawRequest(open.url, {
      path: '/health',
      headers: { 'content-type': 'text/plain', 'content-length': '2' },
      body: 'hi',
    });
    expect(withBody.status).toBe(415);
    const head = await rawRequest(open.url, { method: 'HEAD', path: '/health' });
    expect(head.status).toBe(200);
    const post = await rawRequest(open.url, {
      method: 'POST',
      path: '/discover',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([post.status, codeOf(post)]).toEqual([405, 'method_not_allowed']);
  });

  it('while shutting down, these routes answer 503 like every other', async () => {
    const alpha = memoryAdapter('alpha', { delayMs: 300 });
    const bridge = await startTestBridge([alpha]);
    // Caught at once: on a loaded machine the close below can reset it before anyone awaits it.
    const inFlight = bridge
      .request('/chat/alpha', { method: 'POST', json: { messages: [{ role: 'user', content: 'hi' }] } })
      .catch(() => undefined);
    // Shut down while the chat is running (waiting for that state, not a fixed time).
    await waitFor(() => alpha.calls.length === 1, 10_000);
    const closing = bridge.close();
    const during = await rawRequest(bridge.url, { path: '/health' }).catch(() => undefined);
    if (during) expect([during.status, codeOf(during)]).toEqual([503, 'tool_unavailable']);
    await inFlight;
    await closing;
  });
});
