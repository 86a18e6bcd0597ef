import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { envelopeOf } from './errors.js';
import { clientSignal, discoverBody, healthBody, toolHealthBody, type ReadContext } from './reads.js';

/** Headers every bridge response carries (the Express stack sets the same ones). */
export const BASE_HEADERS: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

/** What the request log says about a request beyond method, status and latency. */
export interface LogFields {
  route?: string;
  toolId?: string;
  stream?: boolean;
  code?: string;
}

interface FastRead {
  route: string;
  toolId?: string;
  body(signal: AbortSignal): Promise<unknown>;
}

/**
 * Polled reads (`GET /discover`, `GET /health`, `GET /health/:toolId`, no
 * query string) answered from the library's caches without Express: measured
 * here, Express's own routing costs about as much as a cached answer, and these
 * are what dashboards poll. The request first passes the very checks the
 * Express stack runs (host, origin, token); anything they would refuse, any
 * query, body or other method, an unknown tool, or a bridge shutting down goes
 * to Express, which answers exactly as before.
 */
export function createFastReads(
  ctx: ReadContext,
  checks: readonly RequestHandler[],
  isClosing: () => boolean,
  /** Called once the request is taken; `fields` gains `code` if it fails, and is read when the response is done. */
  onResponse: (req: IncomingMessage, res: ServerResponse, fields: LogFields) => void,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const readFor = (url: string): FastRead | undefined => {
    if (url === '/discover') return { route: '/discover', body: () => discoverBody(ctx, false) };
    if (url === '/health') return { route: '/health', body: (signal) => healthBody(ctx, false, signal) };
    if (url.startsWith('/health/')) {
      const toolId = url.slice('/health/'.length);
      if (!ctx.toolbridge.registry.has(toolId)) return undefined;
      return { route: '/health/:toolId', toolId, body: (signal) => toolHealthBody(ctx, toolId, false, signal) };
    }
    return undefined;
  };

  const passes = (req: IncomingMessage, res: ServerResponse): boolean => {
    for (const check of checks) {
      let passed = false;
      // The checks are synchronous: each calls next() at once, with an error when it refuses.
      check(req as never, res as never, (err?: unknown) => {
        passed = err === undefined;
      });
      if (!passed) return false;
    }
    return true;
  };

  return (req, res) => {
    if (req.method !== 'GET' || isClosing() || req.headers['content-type'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      return false;
    if (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') return false;
    const read = readFor(req.url ?? '');
    if (!read || !passes(req, res)) return false;
    const fields: LogFields = { route: read.route, ...(read.toolId ? { toolId: read.toolId } : {}) };
    onResponse(req, res, fields);
    read.body(clientSignal(res)).then(
      (body) => send(res, 200, body),
      (err: unknown) => {
        const { status, body } = envelopeOf(err);
        fields.code = body.error.code;
        send(res, status === 499 ? 400 : status, body);
      },
    );
    return true;
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  const json = JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}
