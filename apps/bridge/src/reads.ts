import type { ServerResponse } from 'node:http';
import { AbortedError } from '@toolbridge/core';
import type { Toolbridge } from 'toolbridge';
import type { ResolvedOptions } from './options.js';

/** What the read routes need: the library, the bound on health checks, and the service's identity. */
export interface ReadContext {
  toolbridge: Toolbridge;
  options: Pick<ResolvedOptions, 'healthTimeoutMs'>;
  version: string;
  startedAt: number;
}

/** Aborts when the client goes away before the response is complete: the tool's process is then killed. */
export function clientSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort(new AbortedError('the client disconnected'));
  });
  return controller.signal;
}

/** GET /discover. */
export async function discoverBody(ctx: ReadContext, refresh: boolean) {
  return { tools: await ctx.toolbridge.discover({ refresh }) };
}

/** GET /health: every tool, each from its short-lived cache unless `refresh`. */
export async function healthBody(ctx: ReadContext, refresh: boolean, signal: AbortSignal) {
  const tools = await ctx.toolbridge.checkAllToolsHealth({ timeoutMs: ctx.options.healthTimeoutMs, signal, refresh });
  return { status: 'ok' as const, version: ctx.version, uptimeMs: Math.round(performance.now() - ctx.startedAt), tools };
}

/** GET /health/:toolId (the id is known to the registry). */
export function toolHealthBody(ctx: ReadContext, toolId: string, refresh: boolean, signal: AbortSignal) {
  return ctx.toolbridge.checkHealth(toolId, { timeoutMs: ctx.options.healthTimeoutMs, signal, refresh });
}
