import path from 'node:path';
import { defaultStateDir } from '@toolbridge/core/runtime';
import type { PermissionLevel, Toolbridge, ToolbridgeOptions } from 'toolbridge';
import { isLoopbackHost, isWildcardHost, normalizeHost } from './address.js';
import { silentLogger, stderrLogger, type BridgeLogger } from './logger.js';

export interface BridgeOptions {
  /** Port for `listen()`/`startServer()`; 0 picks a free one. Default 8787. */
  port?: number;
  /** Address to bind. Default `127.0.0.1`. A non-loopback address requires `token`. */
  host?: string;
  /** Bearer token every request must carry (`Authorization: Bearer <token>`). */
  token?: string;
  /** Browser origins (`scheme://host[:port]`) allowed to call the bridge. None by default; `*` is refused. */
  allowedOrigins?: readonly string[];
  /** Extra `Host` header names accepted besides loopback ones (`name` or `name:port`), e.g. a LAN name. */
  allowedHosts?: readonly string[];
  /** Largest accepted request body: bytes, or a string like `"512kb"`, `"1mb"`. Default 16 MiB (room for a few images). */
  bodyLimit?: number | string;
  /** The library instance to serve; built with `toolbridgeOptions` when absent. Closed by `close()`. */
  toolbridge?: Toolbridge;
  toolbridgeOptions?: ToolbridgeOptions;
  /** Request log sink (one entry per request); `false` silences it. Default: JSON lines on stderr. */
  logger?: BridgeLogger | false;
  /** Deadline of a chat that sets no `timeoutMs`. Default 10 minutes. */
  chatTimeoutMs?: number;
  /** Bound on each tool's check in `GET /health` (tools are checked in parallel). Default 10 s. */
  healthTimeoutMs?: number;
  /** Interval of SSE keep-alive comments. Default 15 s. */
  sseKeepAliveMs?: number;
  /** How long `close()` lets in-flight responses finish before cutting sockets. Default 3 s. */
  closeGraceMs?: number;
  /** Folder of the built dashboard served at `GET /`. Default: the one this package ships (`dist/dashboard`). */
  dashboardDir?: string;
  /**
   * Accept chats asking for `permissions: "full"` without a token. Off by default: without a
   * token any local process could otherwise have an agent do anything as this user.
   */
  allowFullPermissions?: boolean;
  /**
   * Probe discovery and health in the background as the server starts, and start warm processes
   * for the tools that are installed, logged in and were used in the last 7 days (`serve`
   * remembers which in `recent-tools.json` in `stateDir`); the others start theirs
   * on their first chat. A list of tool ids also starts those at once. Default true for `serve`.
   */
  warmUp?: boolean | readonly string[];
  /** Where the bridge keeps its own state (the tools used lately). Default `$XDG_STATE_HOME/toolbridge` (`~/.local/state/toolbridge`). */
  stateDir?: string;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  token?: string;
  allowedOrigins: string[];
  allowedHosts: string[];
  bodyLimit: number;
  toolbridge?: Toolbridge;
  toolbridgeOptions?: ToolbridgeOptions;
  logger: BridgeLogger;
  chatTimeoutMs: number;
  healthTimeoutMs: number;
  sseKeepAliveMs: number;
  closeGraceMs: number;
  dashboardDir?: string;
  allowFullPermissions: boolean;
  warmUp: boolean;
  /** Tools whose warm processes start at once (`--warm-up <tool>`), whether used lately or not. */
  warmUpTools: readonly string[];
  stateDir: string;
}

/**
 * The most an agent may be allowed in a chat over HTTP: everything behind a token or with
 * `--allow-full-permissions`, else `workspace-write`, whatever a request or `PUT /config` asks
 * (without a token any local process could otherwise have an agent do anything as this user).
 */
export function maxPermissionsOf(options: Pick<ResolvedOptions, 'token' | 'allowFullPermissions'>): PermissionLevel | undefined {
  return options.token || options.allowFullPermissions ? undefined : 'workspace-write';
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
/** 16 MiB: room for about 12 MiB of images (base64 adds a third), still a bound a local client cannot abuse. */
export const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

const KNOWN = new Set<string>([
  'port',
  'host',
  'token',
  'allowedOrigins',
  'allowedHosts',
  'bodyLimit',
  'toolbridge',
  'toolbridgeOptions',
  'logger',
  'chatTimeoutMs',
  'healthTimeoutMs',
  'sseKeepAliveMs',
  'closeGraceMs',
  'dashboardDir',
  'allowFullPermissions',
  'warmUp',
  'stateDir',
]);

function fail(message: string): never {
  throw new Error(`toolbridge bridge: ${message}`);
}

export function validatePort(value: unknown, what = 'port'): number {
  if (typeof value === 'string' && /^\d+$/.test(value)) value = Number(value);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    fail(`${what} must be an integer from 0 to 65535 (got ${JSON.stringify(value)})`);
  }
  return value;
}

export function parseByteSize(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib)?\s*$/i.exec(value);
    if (m) {
      const unit = (m[2] ?? 'b').toLowerCase();
      const factor = unit === 'b' ? 1 : unit.startsWith('k') ? 1024 : 1024 * 1024;
      const n = Math.floor(Number(m[1]) * factor);
      if (n > 0) return n;
    }
  }
  return fail(`bodyLimit must be a positive number of bytes or a size like "1mb" (got ${JSON.stringify(value)})`);
}

/** `scheme://host[:port]` in canonical form (what browsers send in `Origin`). */
export function normalizeOrigin(value: string): string {
  if (value.trim() === '*') fail('allowedOrigins may not contain "*": name each origin');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return fail(`allowedOrigins entry ${JSON.stringify(value)} is not an origin like "http://localhost:3000"`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    fail(`allowedOrigins entry ${JSON.stringify(value)} must be scheme://host[:port] without a path`);
  }
  if (!/^https?:$/.test(url.protocol) && !/^[a-z][a-z0-9+.-]*-extension:$/.test(url.protocol)) {
    fail(`allowedOrigins entry ${JSON.stringify(value)} must use http, https or a browser-extension scheme`);
  }
  return url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`;
}

function positiveInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
    fail(`${name} must be a positive integer (got ${JSON.stringify(value)})`);
  return value;
}

/** Validate the options object; every mistake is a clear Error naming the option. */
export function resolveOptions(input: unknown = {}): ResolvedOptions {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('options must be an object');
  const o = input as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!KNOWN.has(key)) fail(`unknown option "${key}"`);

  const port = o.port === undefined ? DEFAULT_PORT : validatePort(o.port);
  let host = DEFAULT_HOST;
  if (o.host !== undefined) {
    if (typeof o.host !== 'string' || o.host.trim() === '') fail('host must be a non-empty string');
    host = normalizeHost(o.host);
  }
  let token: string | undefined;
  if (o.token !== undefined && o.token !== '') {
    if (typeof o.token !== 'string' || /\s/.test(o.token)) fail('token must be a string without whitespace');
    token = o.token;
  }
  const list = (name: string, value: unknown): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === ''))
      fail(`${name} must be an array of non-empty strings`);
    return value as string[];
  };
  const allowedOrigins = [...new Set(list('allowedOrigins', o.allowedOrigins).map(normalizeOrigin))];
  const allowedHosts = list('allowedHosts', o.allowedHosts).map((h) => h.trim().toLowerCase());
  const bodyLimit = o.bodyLimit === undefined ? DEFAULT_BODY_LIMIT : parseByteSize(o.bodyLimit);

  if (o.toolbridge !== undefined) {
    const tb = o.toolbridge as Partial<Toolbridge> | null;
    if (typeof tb !== 'object' || tb === null || typeof tb.chatWith !== 'function' || typeof tb.close !== 'function' || !tb.registry) {
      fail('toolbridge must be an instance from createToolbridge()');
    }
  }
  if (o.toolbridgeOptions !== undefined && (typeof o.toolbridgeOptions !== 'object' || o.toolbridgeOptions === null)) {
    fail('toolbridgeOptions must be an object');
  }
  let logger: BridgeLogger = stderrLogger;
  if (o.logger === false) logger = silentLogger;
  else if (typeof o.logger === 'function') logger = o.logger as BridgeLogger;
  else if (o.logger !== undefined) fail('logger must be a function or false');

  if (o.dashboardDir !== undefined && (typeof o.dashboardDir !== 'string' || o.dashboardDir.trim() === ''))
    fail('dashboardDir must be a non-empty string');

  if (o.allowFullPermissions !== undefined && typeof o.allowFullPermissions !== 'boolean') fail('allowFullPermissions must be a boolean');
  const warmUpTools = Array.isArray(o.warmUp) ? (o.warmUp as unknown[]) : [];
  if (
    o.warmUp !== undefined &&
    typeof o.warmUp !== 'boolean' &&
    !(Array.isArray(o.warmUp) && warmUpTools.every((t) => typeof t === 'string'))
  )
    fail('warmUp must be a boolean or a list of tool ids');

  if (!isLoopbackHost(host) && !token) {
    fail(`refusing to listen on non-loopback address ${host} without a token (set token / --token / TOOLBRIDGE_TOKEN)`);
  }
  if (isWildcardHost(host) && !token) fail('refusing to listen on all interfaces without a token');

  return {
    port,
    host,
    token,
    allowedOrigins,
    allowedHosts,
    bodyLimit,
    toolbridge: o.toolbridge as Toolbridge | undefined,
    toolbridgeOptions: o.toolbridgeOptions as ToolbridgeOptions | undefined,
    logger,
    chatTimeoutMs: positiveInt('chatTimeoutMs', o.chatTimeoutMs, 10 * 60_000),
    healthTimeoutMs: positiveInt('healthTimeoutMs', o.healthTimeoutMs, 10_000),
    sseKeepAliveMs: positiveInt('sseKeepAliveMs', o.sseKeepAliveMs, 15_000),
    closeGraceMs: positiveInt('closeGraceMs', o.closeGraceMs, 3_000),
    dashboardDir: o.dashboardDir as string | undefined,
    allowFullPermissions: o.allowFullPermissions === true,
    warmUp: o.warmUp === true || warmUpTools.length > 0,
    warmUpTools: warmUpTools as string[],
    stateDir: stateDirOf(o),
  };
}

function stateDirOf(o: Record<string, unknown>): string {
  if (o.stateDir === undefined) return defaultStateDir((o.toolbridgeOptions as ToolbridgeOptions | undefined)?.env ?? process.env);
  if (typeof o.stateDir !== 'string' || !path.isAbsolute(o.stateDir)) fail('stateDir must be an absolute path');
  return o.stateDir;
}
