import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { isIpLiteral, isLoopbackHost, isWildcardHost, normalizeHost, parseHostHeader } from './address.js';
import { httpError } from './errors.js';
import type { ResolvedOptions } from './options.js';

// DELETE: sessions (`DELETE /sessions/{id}`) and MCP sessions (`DELETE /mcp`).
const ALLOWED_METHODS = 'GET, PUT, POST, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'Authorization, Content-Type';
/**
 * Response headers a browser page may read besides the CORS-safelisted ones: an MCP client keeps
 * the session from `Mcp-Session-Id` (the Streamable HTTP transport reads it, and fails without it);
 * a client backing off reads `Retry-After`.
 */
const EXPOSED_HEADERS = 'Mcp-Session-Id, Retry-After';

/**
 * DNS rebinding guard: a page on evil.example that re-points its name at
 * 127.0.0.1 still sends `Host: evil.example`. Accept only loopback names, the
 * IP literal the client actually connected to (cannot be rebound), and names
 * the operator listed; the port must be the one the socket is on.
 */
export function hostCheck(options: Pick<ResolvedOptions, 'host' | 'allowedHosts'>): RequestHandler {
  const listed = options.allowedHosts.map((entry) => {
    const parsed = parseHostHeader(entry);
    return { host: parsed?.host ?? normalizeHost(entry), port: /:\d+$/.test(entry) ? parsed?.port : undefined };
  });
  return (req, _res, next) => {
    const header = req.headers.host;
    const parsed = header ? parseHostHeader(header) : undefined;
    const localPort = req.socket.localPort;
    const localAddress = normalizeHost(req.socket.localAddress ?? '').replace(/^::ffff:/, '');
    const ok = (() => {
      if (!parsed) return false;
      const host = parsed.host.replace(/^::ffff:/, '');
      for (const l of listed)
        if (l.host === host && (l.port === undefined ? parsed.port === localPort : parsed.port === l.port)) return true;
      if (parsed.port !== localPort) return false;
      if (isLoopbackHost(host)) return true;
      if (isIpLiteral(host) && host === localAddress) return true;
      return !isWildcardHost(options.host) && !isLoopbackHost(options.host) && host === options.host;
    })();
    if (ok) return next();
    next(
      httpError(
        'forbidden',
        `Host header ${header ? JSON.stringify(header) : '(missing)'} is not allowed: use http://127.0.0.1:${localPort} or http://localhost:${localPort}`,
      ),
    );
  };
}

/**
 * For an origin the operator allowed, the headers its preflight asks for, when they
 * are plain header names (OpenAI's browser SDK sends `X-Stainless-*` and others);
 * otherwise the two the bridge needs.
 */
function allowedRequestHeaders(requested: string | undefined): string {
  if (!requested) return ALLOWED_HEADERS;
  const names = requested
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  return names.length > 0 && names.length <= 64 && names.every((h) => /^[A-Za-z0-9-]{1,64}$/.test(h))
    ? [ALLOWED_HEADERS, ...names].join(', ')
    : ALLOWED_HEADERS;
}

/**
 * Whether `Origin` is the bridge itself: a page the bridge served (the dashboard)
 * sends `Origin: http://<Host>` on its POST and PUT. Only sound after `hostCheck`:
 * the Host it compares with is then a loopback or operator-listed name, which a
 * foreign page cannot make its browser send (DNS rebinding leaves its own name in Host).
 */
export function isOwnOrigin(origin: string, host: string | undefined): boolean {
  return host !== undefined && origin === `http://${host.trim().toLowerCase()}`;
}

/**
 * Cross-origin browser requests are refused unless their origin is listed;
 * preflights are answered only for listed origins, echoing the origin (never `*`).
 * The bridge's own origin is same-origin, not cross-origin: it passes without CORS headers.
 * Must run after `hostCheck`.
 */
export function originCheck(options: Pick<ResolvedOptions, 'allowedOrigins'>): RequestHandler {
  const allowed = new Set(options.allowedOrigins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) {
      // Navigations and no-cors fetches from another site carry no Origin, but modern browsers say where they come from.
      if (req.headers['sec-fetch-site'] === 'cross-site')
        return next(httpError('forbidden', 'cross-site browser requests are not allowed'));
      return next();
    }
    if (isOwnOrigin(origin, req.headers.host)) return next();
    if (!allowed.has(origin)) {
      return next(httpError('forbidden', `Origin ${JSON.stringify(origin)} is not allowed (allow it with --allow-origin)`));
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    // Not res.append: the fast read path runs this check on a plain ServerResponse.
    const vary = res.getHeader('Vary');
    if (
      !String(vary ?? '')
        .split(/\s*,\s*/)
        .includes('Origin')
    )
      res.setHeader('Vary', vary ? `${String(vary)}, Origin` : 'Origin');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', allowedRequestHeaders(req.headers['access-control-request-headers']));
      res.setHeader('Access-Control-Max-Age', '600');
      if (req.headers['access-control-request-private-network'] === 'true') res.setHeader('Access-Control-Allow-Private-Network', 'true');
      res.locals.route = 'preflight';
      res.status(204).end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    next();
  };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Bearer token on every route, compared in constant time (hashes have equal length whatever the input). */
export function tokenCheck(token: string): RequestHandler {
  const expected = digest(token);
  return (req, _res, next) => {
    const header = req.headers.authorization;
    const m = header ? /^Bearer[ \t]+(\S+)\s*$/i.exec(header) : null;
    if (m && timingSafeEqual(digest(m[1]!), expected)) return next();
    next(httpError('unauthorized', header ? 'the bearer token is not valid' : 'this bridge requires Authorization: Bearer <token>'));
  };
}

export function hasBody(req: { headers: Record<string, string | string[] | undefined> }): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return typeof length === 'string' && Number(length) > 0;
}

/**
 * Bodies must be JSON. This also stops CORS-"simple" requests (form or
 * text/plain posts that browsers send without a preflight).
 */
export const jsonOnly: RequestHandler = (req, _res, next) => {
  const type = req.headers['content-type'];
  const isJson = typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type.trim());
  const claimsBody = type !== undefined && !['GET', 'HEAD', 'OPTIONS'].includes(req.method);
  if ((hasBody(req) || claimsBody) && !isJson) {
    return next(
      httpError(
        'unsupported_media_type',
        `request bodies must be sent as Content-Type: application/json${type ? ` (got ${JSON.stringify(type.split(';')[0])})` : ''}`,
      ),
    );
  }
  next();
};
