import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServeClient, ServeHttpError, sessionOf, type ServeEvent } from './warm-client.js';

/**
 * The client of `opencode serve` against a local stand-in speaking its wire (frames and errors as
 * recorded from 1.18.33, research FACTS §1.3–1.5): Basic auth on every call, the directory header,
 * error answers typed, SSE frames split anywhere reassembled and routed by session.
 */

const AUTH = `Basic ${Buffer.from('opencode:pw').toString('base64')}`;
let server: http.Server;
let url: string;
const seen: Array<{ path: string; auth?: string; dir?: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', auth: req.headers.authorization, dir: req.headers['x-opencode-directory'] as string | undefined });
    if (req.headers.authorization !== AUTH) return void res.writeHead(401, { 'www-authenticate': 'Basic realm="Secure Area"' }).end();
    if (req.url === '/global/event') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const frames = [
        { payload: { type: 'server.connected', properties: {} } },
        {
          directory: '/d',
          payload: { type: 'message.part.delta', properties: { sessionID: 'ses_a', partID: 'p', field: 'text', delta: 'hé' } },
        },
        { directory: '/d', payload: { type: 'message.part.updated', properties: { part: { sessionID: 'ses_b', type: 'text' } } } },
      ];
      const text = frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('');
      // Split mid-frame and mid-character: the client must reassemble both.
      const bytes = Buffer.from(text);
      const cut = bytes.indexOf(Buffer.from('é')) + 1;
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 20);
      return;
    }
    if (req.url === '/session/ses_gone') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ name: 'NotFoundError', data: { message: 'Session not found: ses_gone' } }));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'ses_new' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('ServeClient', () => {
  it('sends Basic auth and the directory (encoded) on every call, and reads JSON', async () => {
    const client = new ServeClient(url, 'pw');
    expect(await client.request('POST', '/session', { directory: '/tmp/a dir/é', body: { title: 't' } })).toEqual({ id: 'ses_new' });
    expect(seen.at(-1)).toEqual({ path: '/session', auth: AUTH, dir: encodeURIComponent('/tmp/a dir/é') });
  });

  it('types error answers: 404 with its name and message, 401 for a wrong password', async () => {
    const client = new ServeClient(url, 'pw');
    const gone = await client.request('GET', '/session/ses_gone').catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ServeHttpError);
    expect(gone).toMatchObject({ status: 404, errorName: 'NotFoundError', message: expect.stringContaining('Session not found') });
    await expect(new ServeClient(url, 'wrong').request('GET', '/session')).rejects.toMatchObject({ status: 401 });
  });

  it('reassembles SSE frames split anywhere and names the session of each event', async () => {
    const events: ServeEvent[] = [];
    const stop = new AbortController();
    const { ended } = await new ServeClient(url, 'pw').subscribe((e) => events.push(e), stop.signal, 5_000);
    await ended;
    expect(events.map((e) => e.type)).toEqual(['server.connected', 'message.part.delta', 'message.part.updated']);
    expect(events[1]!.properties.delta).toBe('hé');
    expect(events.map(sessionOf)).toEqual([undefined, 'ses_a', 'ses_b']);
  });

  it('says when the server cannot be reached, after a health probe fails too', async () => {
    let gone = 0;
    const dead = new ServeClient('http://127.0.0.1:9', 'pw', () => gone++);
    await expect(dead.request('GET', '/session')).rejects.toMatchObject({ retryable: true });
    expect(gone).toBe(1);
  });
});
