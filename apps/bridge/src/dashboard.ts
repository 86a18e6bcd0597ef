import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router, type Response } from 'express';
import { httpError } from './errors.js';

/** The page may load and talk to nothing but the bridge itself, and nobody may frame it. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Assets live under this path; their names are plain (no folders, no dots but the extension). */
export const DASHBOARD_ASSET_PREFIX = '/dashboard/';

const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|css|svg)$/;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The built dashboard: `dist/dashboard/` next to `dist/dashboard.js` when running
 * the build, and the same folder from `src/` (jest imports sources; the test
 * command builds first).
 */
export function defaultDashboardDir(): string {
  const candidates = [
    fileURLToPath(new URL('./dashboard/', import.meta.url)),
    fileURLToPath(new URL('../dist/dashboard/', import.meta.url)),
  ];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? candidates[candidates.length - 1]!;
}

/**
 * `GET /` (the page) and `GET /dashboard/<asset>`. Mounted after the Host and
 * Origin checks but before the token check: a browser navigation cannot send
 * `Authorization`, and these files hold no secrets (the page asks for the token
 * and sends it on its own API calls). Only GET and HEAD of existing files are
 * answered here; everything else falls through to the token check and the API.
 */
export function createDashboardRouter(dir: string): Router {
  const router = Router();

  const send = async (res: Response, file: string) => {
    const body = await readFile(path.join(dir, file));
    res.setHeader('Content-Type', CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.status(200).send(body);
  };

  router.get('/', async (_req, res, next) => {
    res.locals.route = '/';
    if (!existsSync(path.join(dir, 'index.html'))) {
      return next(
        httpError(
          'dashboard_unavailable',
          `the dashboard is not built (no index.html): run \`npx -y pnpm@10.34.9 run build\` in the repository, then reload; the API works without it`,
        ),
      );
    }
    await send(res, 'index.html');
  });

  router.get(`${DASHBOARD_ASSET_PREFIX}:file`, async (req, res, next) => {
    const file = String(req.params.file);
    if (!ASSET_NAME.test(file) || !existsSync(path.join(dir, file))) return next();
    res.locals.route = `${DASHBOARD_ASSET_PREFIX}:file`;
    await send(res, file);
  });

  return router;
}
