import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolAdapter } from '@toolbridge/core';
import { createToolbridge, type Toolbridge, type ToolbridgeOptions } from 'toolbridge';
import type { RequestLogEntry } from '../logger.js';
import type { BridgeOptions } from '../options.js';
import { startServer, type RunningBridge } from '../server.js';

export interface TestBridge extends RunningBridge {
  toolbridge: Toolbridge;
  logs: RequestLogEntry[];
  /** fetch relative to the bridge URL, JSON by default. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

/** A bridge over the given adapters on an ephemeral loopback port, logs captured. */
export async function startTestBridge(
  adapters: readonly ToolAdapter[],
  options: Omit<BridgeOptions, 'toolbridge' | 'logger'> & { env?: NodeJS.ProcessEnv; toolbridgeOptions?: ToolbridgeOptions } = {},
): Promise<TestBridge> {
  const { env, toolbridgeOptions, ...bridgeOptions } = options;
  // Each bridge keeps its sessions apart: jest's private HOME is shared by every test file of a
  // run, and a test that lists sessions must see only its own.
  const sessionsDir = toolbridgeOptions?.sessions?.dir ? undefined : mkdtempSync(path.join(tmpdir(), 'toolbridge-sessions-'));
  const toolbridge = createToolbridge({
    adapters,
    env: env ?? { PATH: process.env.PATH },
    ...toolbridgeOptions,
    ...(sessionsDir ? { sessions: { ...toolbridgeOptions?.sessions, dir: sessionsDir } } : {}),
  });
  const logs: RequestLogEntry[] = [];
  const running = await startServer({ port: 0, ...bridgeOptions, toolbridge, logger: (e) => logs.push(e) });
  return {
    ...running,
    async close() {
      await running.close();
      if (sessionsDir) rmSync(sessionsDir, { recursive: true, force: true });
    },
    toolbridge,
    logs,
    request(path, init = {}) {
      const { json, headers, ...rest } = init;
      const h = new Headers(headers);
      if (json !== undefined && !h.has('content-type')) h.set('content-type', 'application/json');
      return fetch(running.url + path, { ...rest, headers: h, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
    },
  };
}

/**
 * Bridges for one test file, each closed after its test: `bridge(adapters, options)` (call from
 * the file's top level, where jest's `afterEach` can be registered).
 */
export function testBridges(afterEach: (fn: () => Promise<void>) => void): typeof startTestBridge {
  const open: TestBridge[] = [];
  afterEach(async () => {
    for (const b of open.splice(0)) await b.close();
  });
  return async (adapters, options = {}) => {
    const b = await startTestBridge(adapters, options);
    open.push(b);
    return b;
  };
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/** Read a whole SSE response into events (keep-alive comments skipped). */
export async function readSse(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  return parseSse(text);
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length) events.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return events;
}

/** Raw HTTP request (fetch cannot set Host or send arbitrary bodies freely). */
export async function rawRequest(
  url: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { request } = await import('node:http');
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: opts.headers,
        setHost: !(opts.headers && Object.keys(opts.headers).some((k) => k.toLowerCase() === 'host')),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
