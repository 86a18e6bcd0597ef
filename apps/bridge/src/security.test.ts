import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createToolbridge } from 'toolbridge';
import { memoryAdapter } from './testing/adapters.js';
import { rawRequest, startTestBridge, type TestBridge } from './testing/harness.js';
import { createServer, startServer } from './server.js';

const hello = { messages: [{ role: 'user', content: 'hi' }] };

const codeOf = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

describe('Host header (DNS rebinding)', () => {
  let bridge: TestBridge;
  const tool = memoryAdapter('alpha');
  beforeAll(async () => {
    bridge = await startTestBridge([tool], { allowedHosts: ['bridge.internal'] });
  });
  afterAll(() => bridge.close());

  it.each(['evil.example', `evil.example:${0}`, 'localhost:1', '127.0.0.1', '192.168.1.5:PORT', 'localhost.evil.example:PORT'])(
    'refuses Host %s with 403 before any tool runs',
    async (host) => {
      const before = tool.calls.length;
      const r = await rawRequest(bridge.url, {
        method: 'POST',
        path: '/chat/alpha',
        headers: { host: host.replace('PORT', String(bridge.port)), 'content-type': 'application/json' },
        body: JSON.stringify(hello),
      });
      expect(r.status).toBe(403);
      expect(codeOf(r.body)).toBe('forbidden');
      expect(tool.calls.length).toBe(before);
    },
  );

  it('refuses a request without a Host header', async () => {
    const r = await rawRequest(bridge.url, { path: '/config', headers: { host: '' } });
    expect([400, 403]).toContain(r.status);
  });

  it.each(['localhost:PORT', '127.0.0.1:PORT', 'LOCALHOST:PORT', 'app.localhost:PORT', 'bridge.internal:PORT'])(
    'accepts Host %s',
    async (host) => {
      const r = await rawRequest(bridge.url, { path: '/config', headers: { host: host.replace('PORT', String(bridge.port)) } });
      expect(r.status).toBe(200);
    },
  );
});

describe('Origin (cross-origin browser requests) and CORS', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge([memoryAdapter('alpha')], { allowedOrigins: ['http://localhost:3000/'] });
  });
  afterAll(() => bridge.close());

  it('refuses an Origin not in the allowlist with 403', async () => {
    const res = await bridge.request('/chat/alpha', { method: 'POST', json: hello, headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a preflight from an unknown origin, and the "null" origin', async () => {
    for (const origin of ['https://evil.example', 'null']) {
      const res = await bridge.request('/chat/alpha', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('answers a preflight from an allowed origin, echoing it (never *)', async () => {
    const res = await bridge.request('/chat/alpha', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it("lets an allowed origin delete a session: DELETE is in the preflight's methods, and the answer carries the CORS header", async () => {
    const pre = await bridge.request('/sessions/tbs_nope', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'DELETE' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')?.split(/\s*,\s*/)).toContain('DELETE');
    const del = await bridge.request('/sessions/tbs_nope', { method: 'DELETE', headers: { origin: 'http://localhost:3000' } });
    expect(del.status).toBe(404);
    expect(del.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it("lets an allowed origin's preflight ask for the headers OpenAI's browser SDK sends, and only plain names", async () => {
    const ask = (headers: string) =>
      bridge.request('/v1/chat/completions', {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
      });
    const sdk = await ask('authorization,content-type,x-stainless-os,x-stainless-retry-count');
    expect(sdk.status).toBe(204);
    expect(sdk.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-stainless-retry-count');
    const odd = await ask('x-ok, bad(header)');
    expect(odd.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type');
  });

  it('serves an allowed origin with its CORS header', async () => {
    const res = await bridge.request('/chat/alpha', { method: 'POST', json: hello, headers: { origin: 'http://localhost:3000' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('refuses cross-site browser requests that carry no Origin', async () => {
    const res = await bridge.request('/health', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(403);
  });

  it("lets the bridge's own origin (a page it served) send POST and PUT, without CORS headers", async () => {
    const own = bridge.url; // http://127.0.0.1:PORT, the Host fetch sends
    const chat = await bridge.request('/chat/alpha', { method: 'POST', json: hello, headers: { origin: own } });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('access-control-allow-origin')).toBeNull();
    const put = await rawRequest(bridge.url, {
      method: 'PUT',
      path: '/config',
      headers: { host: `localhost:${bridge.port}`, origin: `http://localhost:${bridge.port}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(put.status).toBe(200);
  });

  it('still refuses origins that only resemble its own', async () => {
    const port = bridge.port;
    for (const [host, origin] of [
      [`127.0.0.1:${port}`, `https://127.0.0.1:${port}`], // another scheme is another origin
      [`127.0.0.1:${port}`, `http://localhost:${port}`], // another name than the Host the page was loaded from
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`], // another local server
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}/`],
      [`127.0.0.1:${port}`, 'null'],
      [`127.0.0.1:${port}`, 'https://evil.example'],
      [`evil.example:${port}`, `http://evil.example:${port}`], // DNS rebinding: Host and Origin agree, the Host check refuses
    ]) {
      const r = await rawRequest(bridge.url, {
        method: 'POST',
        path: '/chat/alpha',
        headers: { host, origin, 'content-type': 'application/json' },
        body: JSON.stringify(hello),
      });
      expect({ host, origin, status: r.status }).toEqual({ host, origin, status: 403 });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('refuses "*" as an allowed origin', () => {
    expect(() => createServer({ allowedOrigins: ['*'], toolbridge: createToolbridge({ adapters: [] }), logger: false })).toThrow(
      /may not contain "\*"/,
    );
  });
});

describe('request bodies', () => {
  let bridge: TestBridge;
  const tool = memoryAdapter('alpha');
  beforeAll(async () => {
    bridge = await startTestBridge([tool], { bodyLimit: 2048 });
  });
  afterAll(() => bridge.close());

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'refuses %s bodies with 415 (CORS-simple posts)',
    async (type) => {
      const before = tool.calls.length;
      const res = await bridge.request('/chat/alpha', { method: 'POST', body: JSON.stringify(hello), headers: { 'content-type': type } });
      expect(res.status).toBe(415);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
      expect(tool.calls.length).toBe(before);
    },
  );

  it('refuses a body without a content type with 415', async () => {
    const r = await rawRequest(bridge.url, { method: 'PUT', path: '/config', headers: { 'content-length': '2' }, body: '{}' });
    expect(r.status).toBe(415);
  });

  it('accepts application/json with a charset', async () => {
    const res = await bridge.request('/chat/alpha', {
      method: 'POST',
      body: JSON.stringify(hello),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });

  it('refuses bodies over the limit with 413', async () => {
    const big = { messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
    const res = await bridge.request('/chat/alpha', { method: 'POST', json: big });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('defaults to a 16 MiB limit (room for a few images)', async () => {
    const b = await startTestBridge([memoryAdapter('alpha')]);
    try {
      const ok = await b.request('/chat/alpha', {
        method: 'POST',
        json: { messages: [{ role: 'user', content: 'x'.repeat(15 * 1024 * 1024) }] },
      });
      expect(ok.status).toBe(200);
      const tooBig = await b.request('/chat/alpha', {
        method: 'POST',
        json: { messages: [{ role: 'user', content: 'x'.repeat(17 * 1024 * 1024) }] },
      });
      expect(tooBig.status).toBe(413);
    } finally {
      await b.close();
    }
  });
});

describe('bearer token', () => {
  let bridge: TestBridge;
  const token = 'tb_0123456789abcdef';
  beforeAll(async () => {
    bridge = await startTestBridge([memoryAdapter('alpha')], { token });
  });
  afterAll(() => bridge.close());

  it('401 with WWW-Authenticate without or with a wrong token, on every route', async () => {
    for (const [path, init] of [
      ['/health', {}],
      ['/config', {}],
      ['/openapi.json', {}],
      ['/queue', {}],
      ['/usage', {}],
      ['/usage/windows', {}],
      ['/nothing', {}],
      ['/chat/alpha', { method: 'POST', json: hello }],
    ] as const) {
      const res = await bridge.request(path, init);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    for (const auth of ['Bearer wrong', `Bearer ${token}x`, `Basic ${token}`, token]) {
      const res = await bridge.request('/config', { headers: { authorization: auth } });
      expect(res.status).toBe(401);
    }
  });

  it('200 with the right token', async () => {
    const res = await bridge.request('/chat/alpha', { method: 'POST', json: hello, headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });
});

describe('bind address', () => {
  const toolbridge = () => createToolbridge({ adapters: [memoryAdapter('alpha')] });

  it('binds 127.0.0.1 by default', async () => {
    const running = await startServer({ port: 0, toolbridge: toolbridge(), logger: false });
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.host).toBe('127.0.0.1');
    } finally {
      await running.close();
    }
  });

  it.each(['0.0.0.0', '::', '192.168.1.20'])('refuses to bind %s without a token', async (host) => {
    await expect(startServer({ port: 0, host, toolbridge: toolbridge(), logger: false })).rejects.toThrow(/without a token/);
    const s = createServer({ toolbridge: toolbridge(), logger: false });
    await expect(s.listen(0, host)).rejects.toThrow(/without a token/);
    await s.close();
  });

  it('binds all interfaces with a token, and then still demands it', async () => {
    const running = await startServer({ port: 0, host: '0.0.0.0', token: 'secret-token', toolbridge: toolbridge(), logger: false });
    try {
      expect((await fetch(`${running.url}/config`)).status).toBe(401);
      expect((await fetch(`${running.url}/config`, { headers: { authorization: 'Bearer secret-token' } })).status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it('validates options with clear errors', () => {
    const tb = toolbridge();
    expect(() => createServer({ port: 70000, toolbridge: tb })).toThrow(/port must be an integer/);
    expect(() => createServer({ bodyLimit: 'huge', toolbridge: tb })).toThrow(/bodyLimit/);
    expect(() => createServer({ allowedOrigins: ['http://x.test/path'], toolbridge: tb })).toThrow(/without a path/);
    expect(() => createServer({ toolbridge: {} as never })).toThrow(/createToolbridge/);
    expect(() => createServer({ prot: 1 } as never)).toThrow(/unknown option "prot"/);
    expect(() => createServer({ token: 'has space', toolbridge: tb })).toThrow(/token/);
  });
});
