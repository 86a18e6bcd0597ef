import { InvalidRequestError, ProviderExecutionError, quoted, toChatResponse, ToolNotFoundError, type StreamEvent } from '@toolbridge/core';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { FallbackStreamEvent } from 'toolbridge';
import { envelopeOf, httpError } from './errors.js';
import type { ResolvedOptions } from './options.js';
import { parseAuthBody, parseFallbackChatBody, parseToolChatBody } from './schemas.js';
import { SseWriter } from './sse.js';
import { clientSignal, discoverBody, healthBody, toolHealthBody, type ReadContext } from './reads.js';

export interface RouteContext extends ReadContext {
  options: ResolvedOptions;
  openapi: Record<string, unknown>;
}

type Method = 'get' | 'put' | 'post';

/**
 * Register a path's handlers, plus OPTIONS (204 with Allow) and a 405
 * envelope for every other method.
 */
function resource(router: Router, path: string, handlers: Partial<Record<Method, RequestHandler>>): void {
  const route = router.route(path);
  const methods = Object.keys(handlers) as Method[];
  for (const m of methods) {
    const handler = handlers[m]!;
    route[m]((req, res, next) => {
      res.locals.route = path;
      return handler(req, res, next);
    });
  }
  const allow = [...methods.map((m) => m.toUpperCase()), ...(methods.includes('get') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  route.all((req, res, next) => {
    res.locals.route = path;
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next(httpError('method_not_allowed', 405, `${req.method} is not allowed on ${path} (allowed: ${allow})`));
  });
}

/** `?refresh=true` (or `1`) skips the short-lived caches of /discover and /health. */
function refreshOf(req: Request): boolean {
  const value = req.query.refresh;
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  throw new InvalidRequestError(`query parameter "refresh" must be true or false (got ${quoted(JSON.stringify(value))})`);
}

interface SseFrame {
  event: string;
  data: unknown;
  /** The response is complete with this frame. */
  final?: boolean;
  /** May be held back: the stream is not committed yet, so a later failure can still be a plain JSON error. */
  preliminary?: boolean;
}

/**
 * Relay library stream events as SSE. Nothing is written until the first
 * real event, so failures before it are ordinary JSON errors with their
 * status; after it, a failure ends the stream with an `error` event (never a
 * clean end that looks like success).
 */
async function relaySse<E>(
  res: Response,
  events: AsyncIterable<E>,
  signal: AbortSignal,
  keepAliveMs: number,
  frame: (event: E) => SseFrame | undefined,
  toolId?: string,
): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const held: SseFrame[] = [];
  let sse: SseWriter | undefined;
  let finished = false;
  let exhausted = false;
  res.locals.stream = true;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      const f = frame(next.value);
      if (!f) continue;
      if (f.final) finished = true;
      if (sse) {
        await sse.send(f.event, f.data);
        continue;
      }
      held.push(f);
      if (f.preliminary) continue;
      sse = new SseWriter(res, keepAliveMs);
      sse.start();
      for (const h of held.splice(0)) await sse.send(h.event, h.data);
    }
    if (!finished) throw new ProviderExecutionError('the tool ended its answer without a final result', { toolId });
  } catch (err) {
    // The client is gone: nobody to tell; the finally block below stops the tool.
    if (signal.aborted && res.destroyed) return;
    if (!sse) throw err;
    const { body } = envelopeOf(err);
    res.locals.errorCode = body.error.code;
    await sse.send('error', body);
  } finally {
    // Stops the tool (kills its process) when we leave early: client gone, error sent.
    if (!exhausted && iterator.return) await iterator.return(undefined).catch(() => undefined);
    sse?.end();
  }
}

const progressFrame = (event: { type: 'progress'; item: unknown }): SseFrame => ({ event: 'progress', data: { item: event.item } });

export function createNativeRouter(ctx: RouteContext): Router {
  const { toolbridge, options } = ctx;
  const { registry } = toolbridge;
  const router = Router();

  const knownTool = (req: Request, res: Response): string => {
    const toolId = String(req.params.toolId);
    res.locals.toolId = toolId;
    registry.adapter(toolId); // ToolNotFoundError (404) naming the id
    return toolId;
  };

  resource(router, '/config', {
    get: (_req, res) => {
      res.json({ config: toolbridge.getConfig() });
    },
    put: (req, res) => {
      if (req.body === undefined) throw new InvalidRequestError('config body is required (a JSON object)');
      res.json({ config: toolbridge.configure(req.body) });
    },
  });

  resource(router, '/health', {
    get: async (req, res) => {
      res.json(await healthBody(ctx, refreshOf(req), clientSignal(res)));
    },
  });

  resource(router, '/health/:toolId', {
    get: async (req, res) => {
      const toolId = knownTool(req, res);
      res.json(await toolHealthBody(ctx, toolId, refreshOf(req), clientSignal(res)));
    },
  });

  resource(router, '/discover', {
    get: async (req, res) => {
      res.json(await discoverBody(ctx, refreshOf(req)));
    },
  });

  resource(router, '/auth/:toolId', {
    post: async (req, res) => {
      const toolId = knownTool(req, res);
      const body = parseAuthBody(req.body);
      res.json(await toolbridge.startAuth(toolId, { timeoutMs: body.timeoutMs ?? 60_000, signal: clientSignal(res) }));
    },
  });

  resource(router, '/chat/:toolId', {
    post: async (req, res) => {
      const toolId = knownTool(req, res);
      const { timeoutMs, stream, ...request } = parseToolChatBody(req.body);
      const signal = clientSignal(res);
      const call = { timeoutMs: timeoutMs ?? options.chatTimeoutMs, signal };
      if (!stream) {
        res.json(await toolbridge.chatWith(toolId, request, call));
        return;
      }
      const adapter = registry.adapter(toolId);
      const started = performance.now();
      await relaySse<StreamEvent>(
        res,
        registry.stream(toolId, request, call),
        signal,
        options.sseKeepAliveMs,
        (event) => {
          switch (event.type) {
            case 'delta':
              return { event: 'delta', data: { text: event.text } };
            case 'progress':
              return progressFrame(event);
            case 'result':
              return {
                event: 'done',
                data: toChatResponse(adapter, event.result, performance.now() - started, request.model),
                final: true,
              };
            default:
              return undefined;
          }
        },
        toolId,
      );
    },
  });

  resource(router, '/chat', {
    post: async (req, res) => {
      const { providers, retries, perAttemptTimeoutMs, timeoutMs, stream, ...request } = parseFallbackChatBody(req.body);
      res.locals.toolId = providers.join(',');
      // A typo in the list is the caller's mistake, not a reason to fall back silently.
      for (const p of providers) if (!registry.has(p)) throw new ToolNotFoundError(p, { known: [...registry.toolIds] });
      const signal = clientSignal(res);
      const call = { providers, retries, perAttemptTimeoutMs, timeoutMs: timeoutMs ?? options.chatTimeoutMs, signal };
      if (!stream) {
        const response = await toolbridge.chat(request, call);
        res.locals.toolId = response.toolId;
        res.json(response);
        return;
      }
      await relaySse<FallbackStreamEvent>(res, toolbridge.streamChat(request, call), signal, options.sseKeepAliveMs, (event) => {
        switch (event.type) {
          case 'attempt':
            return { event: 'attempt', data: event.attempt, preliminary: true };
          case 'delta':
            return { event: 'delta', data: { text: event.text } };
          case 'progress':
            return progressFrame(event);
          case 'done':
            res.locals.toolId = event.response.toolId;
            return { event: 'done', data: event.response, final: true };
          default:
            return undefined;
        }
      });
    },
  });

  resource(router, '/openapi.json', {
    get: (_req, res) => {
      res.json(ctx.openapi);
    },
  });

  return router;
}
