import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a mock received, as it came. */
export interface MockRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Path without the query. */
  path: string;
  headers: IncomingMessage['headers'];
  /** The body as text. */
  raw: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** The client closed the connection before the response was complete. */
  closedEarly: boolean;
  /** The whole response was written. */
  finished: boolean;
}

/** How a handler answers one request. */
export interface MockExchange {
  readonly request: MockRequest;
  readonly res: ServerResponse;
  /** A JSON answer. */
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Start an SSE answer; `event(name, data)` writes `event:` + `data:` lines, `data()` a bare data line. */
  sse(headers?: Record<string, string>): SseOut;
  /** Never answer (until the client goes away or the mock closes). */
  hang(): void;
  /** Wait `ms` (cancelled when the mock closes). */
  sleep(ms: number): Promise<void>;
}

export interface SseOut {
  event(name: string, data: unknown): void;
  data(data: unknown): void;
  end(tail?: string): void;
}

export interface MockHttpServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly requests: MockRequest[];
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  readonly connections: number;
  close(): Promise<void>;
}

export interface MockHttpOptions {
  /** Refuse WebSocket upgrades (Codex tries one first and falls back to SSE). */
  refuseUpgrades?: boolean;
}

/**
 * The one mock HTTP server of the test kit: each tool's mock model server (OpenAI Responses,
 * Anthropic Messages, chat completions, Ollama, Gemini) is a handler on it. It records every
 * request (whether the client hung up early, whether the answer was complete), never leaves a
 * socket or timer behind on `close()`, and listens on 127.0.0.1 only.
 */
export async function startMockHttp(
  handle: (exchange: MockExchange) => void | Promise<void>,
  options: MockHttpOptions = {},
): Promise<MockHttpServer> {
  const requests: MockRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = raw ? JSON.parse(raw) : undefined;
      } catch {
        json = undefined;
      }
      const url = req.url ?? '/';
      const request: MockRequest = {
        method: req.method ?? '',
        url,
        path: url.split('?')[0]!,
        headers: req.headers,
        raw,
        json,
        closedEarly: false,
        finished: false,
      };
      requests.push(request);
      res.on('finish', () => (request.finished = true));
      res.on('close', () => {
        if (!request.finished) request.closedEarly = true;
      });
      const exchange: MockExchange = {
        request,
        res,
        json(status, body, headers = {}) {
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
        },
        sse(headers = {}) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
          return {
            event: (name, data) => void res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`),
            data: (data) => void res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`),
            end: (tail) => void res.end(tail),
          };
        },
        hang() {
          // Answered by nobody: close() destroys the socket.
        },
        sleep: (ms) =>
          new Promise<void>((resolve) => {
            const t = setTimeout(() => {
              timers.delete(t);
              resolve();
            }, ms);
            timers.add(t);
          }),
      };
      void Promise.resolve(handle(exchange)).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  if (options.refuseUpgrades) server.on('upgrade', (_req, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get connections() {
      return connections;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
