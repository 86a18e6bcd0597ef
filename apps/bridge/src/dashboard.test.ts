import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { DASHBOARD_CSP, defaultDashboardDir } from './dashboard.js';
import { memoryAdapter } from './testing/adapters.js';
import { rawRequest, startTestBridge, type TestBridge } from './testing/harness.js';

/**
 * The dashboard over HTTP: what is served, with which headers, and how it sits
 * in the security layer. (The page itself runs in dashboard.e2e.test.ts.)
 * The test command builds before jest, so dist/dashboard exists.
 */

const codeOf = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

beforeAll(() => {
  if (!existsSync(path.join(defaultDashboardDir(), 'index.html'))) {
    throw new Error(`the dashboard is not built in ${defaultDashboardDir()}: run \`npx -y pnpm@10.34.9 run build\` first`);
  }
});

describe('GET / (no token)', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge([memoryAdapter('alpha')]);
  });
  afterAll(() => bridge.close());

  it('serves the page with a strict CSP, no framing and no caching', async () => {
    const res = await bridge.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/dashboard/main.js"></script>');
    // Nothing inline (the CSP would block it) and nothing from another origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('serves its scripts, stylesheet and icon with their types and the same CSP', async () => {
    for (const [file, type] of [
      ['main.js', 'text/javascript; charset=utf-8'],
      ['sse.js', 'text/javascript; charset=utf-8'],
      ['styles.css', 'text/css; charset=utf-8'],
      ['icon.svg', 'image/svg+xml'],
    ]) {
      const res = await bridge.request(`/dashboard/${file}`);
      expect({ file, status: res.status, type: res.headers.get('content-type') }).toEqual({ file, status: 200, type });
      expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    }
  });

  it('answers HEAD without a body', async () => {
    const res = await rawRequest(bridge.url, { method: 'HEAD', path: '/' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
  });

  it('serves nothing but the built assets', async () => {
    for (const p of [
      '/dashboard/index.html',
      '/dashboard/missing.js',
      '/dashboard/..%2Fpackage.json',
      '/dashboard/%2e%2e%2f%2e%2e%2fpackage.json',
      '/dashboard/',
      '/dashboard/sub/main.js',
    ]) {
      const res = await rawRequest(bridge.url, { path: p });
      expect({ p, status: res.status }).toEqual({ p, status: 404 });
      expect(codeOf(res.body)).toBe('not_found');
    }
  });

  it('is behind the Host check (DNS rebinding)', async () => {
    const res = await rawRequest(bridge.url, { path: '/', headers: { host: `evil.example:${bridge.port}` } });
    expect(res.status).toBe(403);
    expect(codeOf(res.body)).toBe('forbidden');
  });

  it('refuses a cross-site request for it, like every route', async () => {
    const res = await bridge.request('/dashboard/main.js', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(403);
  });

  it('only GET and HEAD: other methods on / are the API 404', async () => {
    const res = await bridge.request('/', { method: 'POST', json: {} });
    expect(res.status).toBe(404);
  });
});

describe('GET / with a token', () => {
  let bridge: TestBridge;
  const token = 'tb_dashboard_0123456789';
  beforeAll(async () => {
    bridge = await startTestBridge([memoryAdapter('alpha')], { token });
  });
  afterAll(() => bridge.close());

  it('serves the page and its assets without the token (a navigation cannot send one)', async () => {
    for (const p of ['/', '/dashboard/main.js', '/dashboard/styles.css']) {
      const res = await bridge.request(p);
      expect({ p, status: res.status }).toEqual({ p, status: 200 });
    }
    expect((await rawRequest(bridge.url, { method: 'HEAD', path: '/dashboard/api.js' })).status).toBe(200);
  });

  it('still demands the token everywhere else, including unknown assets and other methods on /', async () => {
    for (const [p, init] of [
      ['/discover', {}],
      ['/health', {}],
      ['/openapi.json', {}],
      ['/dashboard/missing.js', {}],
      ['/dashboard/index.html', {}],
      ['/', { method: 'POST', json: {} }],
      ['/', { method: 'PUT', json: {} }],
    ] as const) {
      const res = await bridge.request(p, init);
      expect({ p, method: init.method ?? 'GET', status: res.status }).toEqual({ p, method: init.method ?? 'GET', status: 401 });
    }
  });

  it('a same-origin PUT from the page works with the token, and not without it', async () => {
    const headers = { origin: bridge.url };
    expect((await bridge.request('/config', { method: 'PUT', json: {}, headers })).status).toBe(401);
    expect(
      (await bridge.request('/config', { method: 'PUT', json: {}, headers: { ...headers, authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
  });
});

describe('GET / before the dashboard is built', () => {
  let bridge: TestBridge;
  let empty: { dir: string; cleanup(): Promise<void> };
  beforeAll(async () => {
    empty = await makeTempDir('toolbridge-no-dashboard-');
    bridge = await startTestBridge([memoryAdapter('alpha')], { dashboardDir: empty.dir });
  });
  afterAll(async () => {
    await bridge.close();
    await empty.cleanup();
  });

  it('answers a 503 envelope that says to build, and the API still works', async () => {
    const res = await bridge.request('/');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('dashboard_unavailable');
    expect(body.error.message).toMatch(/not built.*run build/);
    expect((await bridge.request('/dashboard/main.js')).status).toBe(404);
    expect((await bridge.request('/discover')).status).toBe(200);
  });

  it('refuses an empty dashboardDir option', async () => {
    await expect(startTestBridge([memoryAdapter('alpha')], { dashboardDir: ' ' })).rejects.toThrow(/dashboardDir/);
  });
});
