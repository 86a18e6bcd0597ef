import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startMockHttp, type MockExchange, type MockRequest } from '@toolbridge/test-suite/kit';
import { answerLines } from './fake-answers.js';
import { badImage, defaultCapabilities, installed, showOf, tagOf } from './fake-models.js';

/**
 * A small HTTP server that speaks Ollama's real API on 127.0.0.1 (shapes as
 * served by Ollama 0.9: `/api/version`, `/api/tags`, `/api/show` with `capabilities`, NDJSON
 * `/api/chat` (`format`, base64 `images`, `thinking`) and `/api/generate`, `{"error": ...}`
 * bodies), with switchable failures.
 */

export type FakeBehaviour =
  /** Answer normally. */
  | { kind: 'ok' }
  /** An error answer: `{"error": error}` with this status and headers. */
  | { kind: 'status'; status: number; error: string; headers?: Record<string, string> }
  /** Stream `afterChunks` chunks, then destroy the socket. */
  | { kind: 'cut'; afterChunks: number }
  /** Stream `afterChunks` chunks, then an `{"error": ...}` line, then end. */
  | { kind: 'stream-error'; afterChunks: number; error: string }
  /** Stream every chunk but the final `done: true` one, then end cleanly. */
  | { kind: 'no-done' }
  /** Stream `afterChunks` chunks, then wait (until the client goes away). */
  | { kind: 'stall'; afterChunks: number }
  /** Wait this long before the first byte (headers included), then answer. */
  | { kind: 'slow'; delayMs: number }
  /** Never answer at all. */
  | { kind: 'hang' }
  /** Read the request, then destroy the socket without answering (a reset before the response). */
  | { kind: 'reset' }
  /** Answer normally but write the body `bytes` bytes at a time (splits lines and UTF-8 characters). */
  | { kind: 'trickle'; bytes: number }
  /** Stream answer chunks without end (a runaway server), as fast as the client reads. */
  | { kind: 'flood' }
  /** Answer a GET with a JSON body of this many bytes. */
  | { kind: 'huge'; bytes: number };

export type FakeRoute = '/api/version' | '/api/tags' | '/api/show' | '/api/chat' | '/api/generate';

/** A request the fake received; `body` is its JSON (or its text when it is not JSON). */
export type RecordedRequest = MockRequest & { body: unknown };

export interface FakeOllamaOptions {
  version?: string;
  /** Installed model names, in the order `/api/tags` lists them. */
  models?: string[];
  /** The assistant's answer, streamed in word-sized chunks: fixed, or per model and request body. */
  reply?: string | ((model: string, body: Record<string, unknown>) => string);
  /** `/api/show` capabilities by installed model name (default: what Ollama lists for the family). */
  capabilities?: Record<string, string[]>;
  /** Answer `/api/show` as servers before 0.6 did: no `capabilities`, a `projector_info` for vision models. */
  legacyShow?: boolean;
  /** Thinking text streamed before the answer (reasoning models). */
  thinking?: string;
  /** A fixed `prompt_eval_count` (default: about a quarter of the request's characters). */
  promptTokens?: number;
}

export interface FakeOllama {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Bodies of every `/api/chat` request, in order. */
  readonly chats: Array<{
    model: string;
    messages: Array<{ role: string; content: string; images?: string[] }>;
    format?: unknown;
    [k: string]: unknown;
  }>;
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  readonly connections: number;
  options: Required<FakeOllamaOptions>;
  set(route: FakeRoute, behaviour: FakeBehaviour): void;
  /** Every route back to `ok`, requests forgotten. */
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const opts: Required<FakeOllamaOptions> = {
    version: options.version ?? '0.9.0',
    models: options.models ?? ['qwen3:14b', 'llama3.2:latest'],
    reply: options.reply ?? 'Hello! How can I help you today?',
    thinking: options.thinking ?? '',
    promptTokens: options.promptTokens ?? -1,
    capabilities: options.capabilities ?? {},
    legacyShow: options.legacyShow ?? false,
  };
  const capabilitiesOf = (model: string) => opts.capabilities[model] ?? defaultCapabilities(model);
  const behaviours = new Map<FakeRoute, FakeBehaviour>();

  const stream = async (
    res: ServerResponse,
    rec: RecordedRequest,
    route: FakeRoute,
    behaviour: FakeBehaviour,
    body: Record<string, unknown>,
    sleep: MockExchange['sleep'],
  ) => {
    const model = installed(opts.models, body.model)!;
    const lines = answerLines(route as '/api/chat' | '/api/generate', model, body, opts);
    if (behaviour.kind === 'slow') await sleep(behaviour.delayMs);
    if (rec.closedEarly) return;
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    const write = async (line: string) => {
      if (behaviour.kind === 'trickle') {
        const bytes = Buffer.from(line);
        for (let i = 0; i < bytes.length; i += behaviour.bytes) {
          res.write(bytes.subarray(i, i + behaviour.bytes));
          await sleep(1);
        }
      } else {
        res.write(line);
        await new Promise((r) => setImmediate(r));
      }
    };
    const body_ = lines.slice(0, -1);
    switch (behaviour.kind) {
      case 'cut':
        for (const l of body_.slice(0, behaviour.afterChunks)) await write(l);
        await sleep(20);
        res.socket?.destroy();
        return;
      case 'stream-error':
        for (const l of body_.slice(0, behaviour.afterChunks)) await write(l);
        res.end(JSON.stringify({ error: behaviour.error }) + '\n');
        return;
      case 'no-done':
        for (const l of body_) await write(l);
        res.end();
        return;
      case 'stall':
        for (const l of body_.slice(0, behaviour.afterChunks)) await write(l);
        return; // The response stays open until the client goes away.
      case 'flood': {
        const line = Buffer.from(body_[0]!.repeat(512));
        while (!rec.closedEarly && !res.destroyed) {
          if (!res.write(line)) await new Promise((r) => res.once('drain', r).once('close', r));
        }
        return;
      }
      default:
        for (const l of lines) {
          if (rec.closedEarly) return;
          await write(l);
        }
        res.end();
    }
  };

  const handle = async (x: MockExchange) => {
    const sleep = x.sleep;
    const rec = x.request as RecordedRequest;
    rec.body = rec.json ?? (rec.raw || undefined);
    const { res } = x;
    const path = rec.path;
    const method = rec.method;
    const body = rec.body;
    const sendJson = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      x.json(status, value, { 'Content-Type': 'application/json; charset=utf-8', ...headers });

    const route = path as FakeRoute;
    const behaviour = behaviours.get(route) ?? { kind: 'ok' };
    if (behaviour.kind === 'hang') return x.hang();
    if (behaviour.kind === 'reset') return void res.socket?.destroy();
    if (behaviour.kind === 'status') return sendJson(behaviour.status, { error: behaviour.error }, behaviour.headers);
    if (behaviour.kind === 'huge') return sendJson(200, { version: 'x'.repeat(behaviour.bytes) });
    if (path === '/api/version' && method === 'GET') {
      if (behaviour.kind === 'slow') await sleep(behaviour.delayMs);
      if (!rec.closedEarly) sendJson(200, { version: opts.version });
      return;
    }
    if (path === '/api/tags' && method === 'GET') {
      if (behaviour.kind === 'slow') await sleep(behaviour.delayMs);
      if (!rec.closedEarly) sendJson(200, { models: opts.models.map(tagOf) });
      return;
    }
    if (path === '/api/show' && method === 'POST') {
      const b = (typeof body === 'object' && body !== null ? body : {}) as { model?: unknown; name?: unknown };
      const wanted = b.model || b.name;
      if (typeof wanted !== 'string' || wanted === '') return sendJson(400, { error: 'model is required' });
      const name = installed(opts.models, wanted);
      if (!name) return sendJson(404, { error: `model '${wanted}' not found` });
      if (behaviour.kind === 'slow') await sleep(behaviour.delayMs);
      if (!rec.closedEarly) sendJson(200, showOf(name, capabilitiesOf(name), opts.legacyShow));
      return;
    }
    if ((path === '/api/chat' || path === '/api/generate') && method === 'POST') {
      const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      if (path === '/api/chat') chats.push(b as FakeOllama['chats'][number]);
      if (typeof b.model !== 'string' || b.model === '') return sendJson(400, { error: 'model is required' });
      const name = installed(opts.models, b.model);
      if (!name) return sendJson(404, { error: `model "${b.model}" not found, try pulling it first` });
      const bad = badImage(b.messages);
      if (bad) return sendJson(400, { error: bad });
      const withImages = Array.isArray(b.messages) && b.messages.some((m) => Array.isArray((m as { images?: unknown }).images));
      // Ollama's chat does not check for vision; the runner of a model without an image encoder fails.
      if (withImages && !capabilitiesOf(name).includes('vision')) {
        return sendJson(500, { error: 'this model is missing data required for image input' });
      }
      await stream(res, rec, route, behaviour, b, sleep);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found');
  };

  const chats: FakeOllama['chats'] = [];
  const http = await startMockHttp(handle);
  const requests = http.requests as RecordedRequest[];

  return {
    url: http.url,
    requests,
    chats,
    get connections() {
      return http.connections;
    },
    options: opts,
    set: (route, behaviour) => void behaviours.set(route, behaviour),
    reset() {
      behaviours.clear();
      requests.length = 0;
      chats.length = 0;
    },
    close: () => http.close(),
  };
}

/** A port on 127.0.0.1 with nothing listening (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
