import { InvalidRequestError } from '@toolbridge/core';

/** Where Ollama listens when nothing says otherwise. */
export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';

const DEFAULT_PORT = '11434';

// Ollama binds these to mean "every interface"; a client must dial loopback instead.
const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]']);

function splitHostPort(hostport: string): { host: string; port?: string } {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(hostport);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] };
  const colons = hostport.split(':').length - 1;
  if (colons === 1) {
    const [host, port] = hostport.split(':');
    return { host: host!, port };
  }
  // Zero colons: a bare host. Two or more without brackets: a bare IPv6 address.
  return { host: hostport };
}

function formatHost(host: string): string {
  if (host === '' || UNSPECIFIED.has(host)) return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Turn an `OLLAMA_HOST` value into a base URL, the way Ollama's own client
 * reads it: `host:port`, a bare host (port 11434), `http(s)://host[:port][/path]`
 * (scheme default ports), and `0.0.0.0`/`::` (a bind address) meaning this machine.
 * A value with another scheme is returned as is, so config validation names
 * the variable instead of silently dialling somewhere else.
 */
export function normalizeOllamaHost(value: string): string {
  const s = value.trim();
  if (s === '') return DEFAULT_OLLAMA_URL;
  let scheme = 'http';
  let rest = s;
  let defaultPort = DEFAULT_PORT;
  const withScheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/.exec(s);
  if (withScheme) {
    scheme = withScheme[1]!.toLowerCase();
    rest = withScheme[2]!;
    if (scheme === 'http') defaultPort = '80';
    else if (scheme === 'https') defaultPort = '443';
    else return s;
  }
  const slash = rest.indexOf('/');
  const hostport = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = (slash >= 0 ? rest.slice(slash) : '').replace(/\/+$/, '');
  const { host, port } = splitHostPort(hostport);
  // Like Ollama: a port that is not a valid number falls back to the default.
  const validPort = port !== undefined && /^\d{1,5}$/.test(port) && Number(port) <= 65535 ? port : defaultPort;
  return `${scheme}://${formatHost(host)}:${validPort}${path}`;
}

/**
 * The base URL (no trailing slash) to call, from the effective config
 * (`ollamaHost` already carries the env default), else the default.
 */
export function resolveBaseUrl(config: Readonly<Record<string, unknown>>): string {
  const raw = config.ollamaHost;
  if (raw === undefined || raw === null || raw === '') return DEFAULT_OLLAMA_URL;
  let url: URL;
  try {
    if (typeof raw !== 'string') throw new TypeError('not a string');
    url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http');
  } catch {
    throw new InvalidRequestError('config key "ollamaHost" must be an http or https URL', { toolId: 'ollama' });
  }
  if (UNSPECIFIED.has(url.hostname)) url.hostname = '127.0.0.1';
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}
