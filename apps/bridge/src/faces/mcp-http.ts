import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Router, type RequestHandler } from 'express';
import { httpError } from '../errors.js';
import type { Method, RouteDoc } from '../route-table.js';
import { createMcpFace, type McpFaceOptions } from './mcp.js';

/** MCP sessions kept at once; a new one beyond this ends the oldest (each holds a little memory, no process). */
const MAX_SESSIONS = 64;

const MCP_MESSAGE = { type: 'object', description: 'A JSON-RPC message of the Model Context Protocol (2025-06-18)' };

/**
 * `/mcp` in `/openapi.json`. Not in the route table: the MCP SDK's transport answers these, so the
 * router does not register them (MCP clients read the protocol, not this document).
 */
export const MCP_ROUTE_DOCS: Partial<Record<Method, RouteDoc>> = {
  post: {
    operationId: 'mcpPost',
    summary:
      'MCP over Streamable HTTP: an initialize request starts an MCP session (its id in the Mcp-Session-Id response header), later messages carry that header. Tools: chat, discover, health',
    response: {
      status: 200,
      description: 'The JSON-RPC answer (202 without a body for a notification or a response)',
      schema: MCP_MESSAGE,
      sse: 'A stream of JSON-RPC messages (progress notifications, elicitations), ending with the answer',
    },
    errors: [400, 401, 403, 404],
  },
  get: {
    operationId: 'mcpStream',
    summary: "An MCP session's stream of server messages (needs Mcp-Session-Id)",
    response: { status: 200, description: 'Server-sent JSON-RPC messages', schema: MCP_MESSAGE, sse: 'JSON-RPC messages' },
    errors: [400, 401, 403, 404],
  },
  delete: {
    operationId: 'mcpEnd',
    summary: 'End an MCP session (needs Mcp-Session-Id)',
    response: { status: 200, description: 'Ended' },
    errors: [400, 401, 403, 404],
  },
};

export interface McpHttpFace {
  router: Router;
  /** End every MCP session (the bridge is closing). */
  close(): Promise<void>;
}

/**
 * `POST /mcp` (and `GET`/`DELETE` of an MCP session): Streamable HTTP with sessions, mounted after
 * the bridge's Host, Origin and token checks like every route. Sessions are kept because a host
 * answers an elicitation (an approval) with a new POST, which must reach the same server.
 */
export function createMcpHttpFace(options: McpFaceOptions): McpHttpFace {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const router = Router();

  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        if (sessions.size > MAX_SESSIONS) void sessions.values().next().value?.close();
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createMcpFace(options).connect(transport);
    return transport;
  };

  const handle: RequestHandler = async (req, res, next) => {
    res.locals.route = '/mcp';
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === 'string') return next(httpError('not_found', 'no such MCP session (it ended): initialize a new one'));
      if (req.method !== 'POST' || !isInitializeRequest(req.body))
        return next(httpError('invalid_request', 'an MCP session starts with an initialize request (POST /mcp)'));
      transport = await open();
    }
    await transport.handleRequest(req, res, req.body);
  };
  router.post('/mcp', handle);
  router.get('/mcp', handle);
  router.delete('/mcp', handle);
  router.all('/mcp', (req, res, next) => {
    res.locals.route = '/mcp';
    res.setHeader('Allow', 'GET, POST, DELETE, OPTIONS');
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next(httpError('method_not_allowed', `${req.method} is not allowed on /mcp (allowed: GET, POST, DELETE)`));
  });

  return {
    router,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      sessions.clear();
    },
  };
}
