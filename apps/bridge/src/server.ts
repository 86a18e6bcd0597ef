import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express, { type Express, type RequestHandler } from 'express';
import { createToolbridge, type Toolbridge } from 'toolbridge';
import { isLoopbackHost, isWildcardHost, normalizeHost, urlHost } from './address.js';
import { createDashboardRouter, defaultDashboardDir } from './dashboard.js';
import { errorHandler, httpError } from './errors.js';
import { buildOpenApiDocument } from './openapi.js';
import { maxPermissionsOf, resolveOptions, validatePort, type BridgeOptions, type ResolvedOptions } from './options.js';
import { BASE_HEADERS, createFastReads, type LogFields } from './fast-reads.js';
import { RecentTools } from './recent-tools.js';
import { createNativeRouter } from './routes.js';
import { hasBody, hostCheck, jsonOnly, originCheck, tokenCheck } from './security.js';
import { bridgeVersion } from './version.js';
import { createOpenAIRouter } from './openai/router.js';

export interface RunningBridge {
  /** `http://127.0.0.1:PORT` (the loopback address and the actual port). */
  url: string;
  port: number;
  host: string;
  /** Stop accepting, end in-flight tool processes, close sockets; resolves when the server is closed. */
  close(): Promise<void>;
}

export interface BridgeServer {
  /** The Express app: add middleware or routes before `listen()`. */
  readonly app: Express;
  readonly toolbridge: Toolbridge;
  /** Start listening; defaults to the `port`/`host` options (8787, 127.0.0.1). */
  listen(port?: number, host?: string): Promise<RunningBridge>;
  /** Same as the `close()` of the running server; also usable before `listen()`. */
  close(): Promise<void>;
}

/** One log line per request, once its response is done or cut; no bodies, no headers, no query strings. */
function logWhenDone(options: ResolvedOptions, req: IncomingMessage, res: ServerResponse, fields: () => LogFields): void {
  const started = performance.now();
  let logged = false;
  const log = () => {
    if (logged) return;
    logged = true;
    const f = fields();
    const status = res.writableFinished || res.headersSent ? res.statusCode : 499;
    options.logger({
      time: new Date().toISOString(),
      level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info',
      msg: 'request',
      method: req.method,
      route: f.route ?? new URL(req.url ?? '/', 'http://x').pathname.slice(0, 200),
      status,
      ...(f.toolId ? { toolId: String(f.toolId) } : {}),
      latencyMs: Math.round(performance.now() - started),
      ...(f.stream ? { stream: true } : {}),
      ...(f.code ? { code: String(f.code) } : {}),
      ...(!res.writableFinished ? { aborted: true } : {}),
    });
  };
  res.on('finish', log);
  res.on('close', log);
}

function requestLog(options: ResolvedOptions): RequestHandler {
  return (req, res, next) => {
    logWhenDone(options, req, res, () => ({
      route: res.locals.route ?? (req.route ? `${req.baseUrl}${String(req.route.path)}` : undefined),
      toolId: res.locals.toolId,
      stream: res.locals.stream,
      code: res.locals.errorCode,
    }));
    next();
  };
}

/**
 * Build the bridge (not yet listening). The Express app carries the security
 * middleware first (the dashboard's static files sit between the Origin and
 * the token checks), then the native routes, the OpenAI-compatible routes,
 * the 404 envelope and the one error handler.
 */
export function createServer(input: BridgeOptions = {}): BridgeServer {
  const options = resolveOptions(input);
  const toolbridge = options.toolbridge ?? createToolbridge(options.toolbridgeOptions);
  const recent = new RecentTools(toolbridge, options.stateDir);
  const app = express();
  const startedAt = performance.now();
  let closing = false;
  let server: Server | undefined;
  let closePromise: Promise<void> | undefined;

  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(requestLog(options));
  app.use((_req, res, next) => {
    res.set(BASE_HEADERS);
    if (closing) {
      res.setHeader('Connection', 'close');
      return next(httpError('tool_unavailable', 'the bridge is shutting down'));
    }
    next();
  });
  const [host, origin, token] = [hostCheck(options), originCheck(options), options.token ? tokenCheck(options.token) : undefined];
  app.use(host, origin);
  // The page and its assets come before the token check: a browser navigation cannot send one (see dashboard.ts).
  app.use(createDashboardRouter(options.dashboardDir ?? defaultDashboardDir()));
  if (token) app.use(token);
  const checks = token ? [host, origin, token] : [host, origin];
  app.use(jsonOnly);
  app.use(express.json({ limit: options.bodyLimit, type: 'application/json', strict: true }));
  // body-parser turns an empty body into {}; an empty PUT /config must not silently clear the config.
  app.use((req, _res, next) => {
    if (!hasBody(req)) req.body = undefined;
    next();
  });

  const openapi = buildOpenApiDocument({
    version: bridgeVersion(),
    configSchema: toolbridge.registry.config.jsonSchema,
    tokenRequired: Boolean(options.token),
  });
  const routeContext = { toolbridge, options, version: bridgeVersion(), startedAt, openapi };
  app.use(createNativeRouter(routeContext));
  const fastReads = createFastReads(
    routeContext,
    checks,
    () => closing,
    (req, res, fields) => logWhenDone(options, req, res, () => fields),
  );
  app.use(
    '/v1',
    createOpenAIRouter({
      toolbridge,
      chatTimeoutMs: options.chatTimeoutMs,
      bodyLimit: options.bodyLimit,
      sseKeepAliveMs: options.sseKeepAliveMs,
      maxPermissions: maxPermissionsOf(options),
    }),
  );

  // Routes added by the caller before listen() must still come before the 404; so these go last, lazily.
  let tailInstalled = false;
  const installTail = () => {
    if (tailInstalled) return;
    tailInstalled = true;
    app.use((req, _res, next) => next(httpError('not_found', `no route for ${req.method} ${req.path.slice(0, 200)}`)));
    app.use(errorHandler);
  };

  // Sockets and their in-flight requests: idle keep-alive sockets (and ones that never sent a request)
  // would otherwise hold server.close() open until their timeouts.
  const sockets = new Map<Socket, number>();
  const endIdleSockets = () => {
    for (const [socket, active] of sockets) if (active === 0) socket.end();
  };
  const trackSockets = (srv: Server) => {
    srv.on('connection', (socket: Socket) => {
      sockets.set(socket, 0);
      socket.once('close', () => sockets.delete(socket));
    });
    srv.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      sockets.set(socket, (sockets.get(socket) ?? 0) + 1);
      res.once('close', () => {
        if (!sockets.has(socket)) return;
        const left = Math.max(0, (sockets.get(socket) ?? 1) - 1);
        sockets.set(socket, left);
        if (closing && left === 0) socket.end();
      });
    });
  };

  const close = (): Promise<void> => {
    if (closePromise) return closePromise;
    closing = true;
    closePromise = (async () => {
      const srv = server;
      const serverClosed = srv ? new Promise<void>((resolve) => srv.close(() => resolve())) : Promise.resolve();
      if (options.warmUp) await recent.close();
      // Aborting in-flight calls kills their tool processes; their requests answer 503 and finish.
      await toolbridge.close();
      endIdleSockets();
      const grace = setTimeout(() => srv?.closeAllConnections(), options.closeGraceMs);
      grace.unref();
      try {
        await serverClosed;
      } finally {
        clearTimeout(grace);
      }
    })();
    return closePromise;
  };

  const listen = (portArg?: number, hostArg?: string): Promise<RunningBridge> => {
    if (server) return Promise.reject(new Error('toolbridge bridge: listen() was already called'));
    const port = portArg === undefined ? options.port : validatePort(portArg);
    const host = hostArg === undefined ? options.host : normalizeHost(hostArg);
    if ((!isLoopbackHost(host) || isWildcardHost(host)) && !options.token) {
      return Promise.reject(
        new Error(
          `toolbridge bridge: refusing to listen on non-loopback address ${host} without a token (set token / --token / TOOLBRIDGE_TOKEN)`,
        ),
      );
    }
    installTail();
    // Routes a caller adds come after the native ones (see createNativeRouter above), so they never
    // saw these reads through Express either: answering them first changes nothing for them.
    const srv = createHttpServer((req, res) => {
      if (!fastReads(req, res)) app(req, res);
    });
    // requestTimeout bounds only receiving the request (a stalled body gets 408 and its socket
    // back), never the response: long agent runs and streams keep the tools' own deadlines.
    srv.requestTimeout = 60_000;
    srv.headersTimeout = 30_000;
    srv.keepAliveTimeout = 5_000;
    server = srv;
    trackSockets(srv);
    return new Promise((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, host, () => {
        srv.off('error', reject);
        const address = srv.address() as AddressInfo;
        const shownHost = isWildcardHost(host) ? '127.0.0.1' : host;
        // The first look is warm too: discovery and health answer the dashboard's first load from the cache,
        // and tools with a warm transport start their processes now, off the request path.
        if (options.warmUp) void warmUp(toolbridge, recent, options.warmUpTools);
        resolve({ url: `http://${urlHost(shownHost)}:${address.port}`, port: address.port, host, close });
      });
    });
  };

  return { app, toolbridge, listen, close };
}

/**
 * Probe every tool, and start warm processes in the background for the tools named, and for those
 * that are logged in and were used lately (a warm process holds 100-300 MiB: nobody should pay
 * that for a tool they do not use); failures show up in health, not here.
 */
async function warmUp(toolbridge: Toolbridge, recent: RecentTools, named: readonly string[]): Promise<void> {
  recent.watch();
  const lately = async () => {
    const [used, health] = await Promise.all([recent.recent(), toolbridge.discover().then(() => toolbridge.checkAllToolsHealth())]);
    const ready = health.filter((h) => h.available && h.authenticated && used.includes(h.toolId) && !named.includes(h.toolId));
    if (ready.length > 0)
      await toolbridge.prewarm(
        undefined,
        ready.map((h) => h.toolId),
      );
  };
  await Promise.allSettled([lately(), named.length > 0 ? toolbridge.prewarm(undefined, named) : undefined]);
}

/** Create and start the bridge: `{ url, close() }`. */
export async function startServer(options: BridgeOptions = {}): Promise<RunningBridge> {
  const bridge = createServer(options);
  try {
    return await bridge.listen();
  } catch (e) {
    await bridge.close();
    throw e;
  }
}
