import { InvalidRequestError, ToolNotFoundError } from '@toolbridge/core';
import { dateParam, quoted, usageQuery, type ValidChatRequest } from '@toolbridge/core/runtime';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { FallbackStreamEvent, ToolStreamEvent } from 'toolbridge';
import { envelopeOf, httpError } from './errors.js';
import { maxPermissionsOf, type ResolvedOptions } from './options.js';
import { relaySse, type SseFrame } from './relay.js';
import { ROUTE_TABLE, type Method, type RoutePath } from './route-table.js';
import { parseApprovalReply, parseAuthBody, parseFallbackChatBody, parseToolChatBody } from './schemas.js';
import { clientSignal, discoverBody, healthBody, toolHealthBody, type ReadContext } from './reads.js';

export interface RouteContext extends ReadContext {
  options: ResolvedOptions;
  openapi: Record<string, unknown>;
}

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
    next(httpError('method_not_allowed', `${req.method} is not allowed on ${path} (allowed: ${allow})`));
  });
}

/** `?refresh=true` (or `1`) skips the short-lived caches of /discover and /health. */
function refreshOf(req: Request): boolean {
  const value = req.query.refresh;
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  throw new InvalidRequestError(`query parameter "refresh" must be true or false (got ${quoted(JSON.stringify(value))})`);
}

type TurnEvent =
  | { type: 'delta'; text: string }
  | { type: 'activity'; activity: unknown }
  | { type: 'approval'; approval: unknown }
  | { type: 'done'; response: unknown };

/**
 * The frames of the events a tool's stream and a fallback stream share: text, activity steps, an
 * action waiting for the caller's answer (`POST /approvals/:approvalId`), the final response.
 */
function turnFrame(event: TurnEvent): SseFrame {
  switch (event.type) {
    case 'delta':
      return { event: 'delta', data: { text: event.text } };
    case 'activity':
      return { event: 'activity', data: { activity: event.activity } };
    case 'approval':
      return { event: 'approval', data: event.approval };
    case 'done':
      return { event: 'done', data: event.response, final: true };
  }
}

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

  /**
   * `full` lets an agent do anything as this user: over HTTP only behind a token, or when the
   * bridge was started to allow it. A request asking for it is refused outright; a level from the
   * config or the environment is narrowed by `maxPermissions` on every chat call.
   */
  const maxPermissions = maxPermissionsOf(options);
  const permitted = (request: ValidChatRequest) => {
    if (request.permissions === 'full' && maxPermissions) {
      throw httpError(
        'forbidden',
        'permissions "full" is refused: start the bridge with a token (--token) or with --allow-full-permissions to allow it',
      );
    }
    return request;
  };
  const streamError = (err: unknown) => {
    const { body } = envelopeOf(err);
    return { payload: body, code: body.error.code };
  };

  const handlers: { [P in RoutePath]: Record<keyof (typeof ROUTE_TABLE)[P], RequestHandler> } = {
    '/config': {
      get: (_req, res) => {
        res.json({ config: toolbridge.getConfig() });
      },
      put: (req, res) => {
        if (req.body === undefined) throw new InvalidRequestError('config body is required (a JSON object)');
        res.json({ config: toolbridge.configure(req.body) });
      },
    },

    '/health': {
      get: async (req, res) => {
        res.json(await healthBody(ctx, refreshOf(req), clientSignal(res)));
      },
    },

    '/health/:toolId': {
      get: async (req, res) => {
        const toolId = knownTool(req, res);
        res.json(await toolHealthBody(ctx, toolId, refreshOf(req), clientSignal(res)));
      },
    },

    '/discover': {
      get: async (req, res) => {
        res.json(await discoverBody(ctx, refreshOf(req)));
      },
    },

    '/auth/:toolId': {
      post: async (req, res) => {
        const toolId = knownTool(req, res);
        const body = parseAuthBody(req.body);
        res.json(await toolbridge.startAuth(toolId, { timeoutMs: body.timeoutMs ?? 60_000, signal: clientSignal(res) }));
      },
    },

    '/chat/:toolId': {
      post: async (req, res) => {
        const toolId = knownTool(req, res);
        const { timeoutMs, stream, request } = await parseToolChatBody(req.body);
        const signal = clientSignal(res);
        const call = { timeoutMs: timeoutMs ?? options.chatTimeoutMs, signal, maxPermissions };
        if (!stream) {
          res.json(await toolbridge.chatWith(toolId, permitted(request), call));
          return;
        }
        await relaySse<ToolStreamEvent>(res, toolbridge.streamWith(toolId, permitted(request), call), {
          dialect: 'native',
          keepAliveMs: options.sseKeepAliveMs,
          signal,
          toolId,
          error: streamError,
          frames: (event) => [turnFrame(event)],
        });
      },
    },

    '/chat': {
      post: async (req, res) => {
        const { providers, retries, perAttemptTimeoutMs, timeoutMs, route, waitForQuota, stream, request } = await parseFallbackChatBody(
          req.body,
        );
        res.locals.toolId = providers.join(',');
        const signal = clientSignal(res);
        const call = {
          providers,
          retries,
          perAttemptTimeoutMs,
          timeoutMs: timeoutMs ?? options.chatTimeoutMs,
          signal,
          maxPermissions,
          route,
          waitForQuota,
        };
        if (!stream) {
          const response = await toolbridge.chat(permitted(request), call);
          res.locals.toolId = response.toolId;
          res.json(response);
          return;
        }
        await relaySse<FallbackStreamEvent>(res, toolbridge.streamChat(permitted(request), call), {
          dialect: 'native',
          keepAliveMs: options.sseKeepAliveMs,
          signal,
          error: streamError,
          frames: (event) => {
            if (event.type === 'attempt') return [{ event: 'attempt', data: event.attempt, preliminary: true }];
            if (event.type === 'done') res.locals.toolId = event.response.toolId;
            return [turnFrame(event)];
          },
        });
      },
    },

    '/queue': {
      get: (_req, res) => {
        res.json({ waiting: toolbridge.waiting() });
      },
    },

    '/usage': {
      get: async (req, res) => {
        const q = req.query;
        res.json(await toolbridge.usageHistory(usageQuery({ since: q.since, until: q.until, groupBy: q.groupBy })));
      },
    },

    '/usage/windows': {
      get: async (req, res) => {
        const toolId = req.query.toolId;
        if (toolId !== undefined && (typeof toolId !== 'string' || !toolbridge.registry.has(toolId))) {
          throw new ToolNotFoundError(String(toolId), { known: [...toolbridge.registry.toolIds] });
        }
        res.json({ snapshots: await toolbridge.windowHistory({ toolId, since: dateParam(req.query.since, 'since') }) });
      },
    },

    '/sessions': {
      get: async (_req, res) => {
        res.json({ sessions: await toolbridge.sessions.list() });
      },
    },

    '/sessions/:sessionId': {
      get: async (req, res) => {
        res.json(await toolbridge.sessions.get(String(req.params.sessionId)));
      },
      delete: async (req, res) => {
        await toolbridge.sessions.delete(String(req.params.sessionId));
        res.status(204).end();
      },
    },

    '/sessions/:sessionId/interrupt': {
      post: async (req, res) => {
        const sessionId = String(req.params.sessionId);
        await toolbridge.interrupt(sessionId);
        res.status(202).json({ sessionId, interrupted: true });
      },
    },

    '/approvals': {
      get: (_req, res) => {
        res.json({ approvals: toolbridge.approvals.list() });
      },
    },

    '/approvals/:approvalId': {
      post: (req, res) => {
        const reply = parseApprovalReply(req.body);
        res.json(toolbridge.approvals.decide(String(req.params.approvalId), reply));
      },
    },

    '/openapi.json': {
      get: (_req, res) => {
        res.json(ctx.openapi);
      },
    },
  };
  for (const path of Object.keys(ROUTE_TABLE) as RoutePath[]) resource(router, path, handlers[path]);
  return router;
}
