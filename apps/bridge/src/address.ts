import { isIP } from 'node:net';

/** Strip IPv6 brackets and lower-case. */
export function normalizeHost(host: string): string {
  const h = host.trim().toLowerCase();
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** Loopback names and addresses: `localhost`, `*.localhost`, 127.0.0.0/8, ::1 (also IPv4-mapped). */
export function isLoopbackHost(host: string): boolean {
  const h = normalizeHost(host);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped ? mapped[1]!.startsWith('127.') : false;
  }
  return false;
}

export function isWildcardHost(host: string): boolean {
  const h = normalizeHost(host);
  return h === '0.0.0.0' || h === '::' || h === '';
}

export function isIpLiteral(host: string): boolean {
  return isIP(normalizeHost(host)) !== 0;
}

/**
 * Split a Host header into name and port; undefined when malformed.
 * A missing port means 80, the default of the plain HTTP we serve.
 */
export function parseHostHeader(value: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (!m) return undefined;
  const port = m[2] === undefined ? 80 : Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: normalizeHost(m[1]!), port };
}

/** A host as written in a URL (IPv6 in brackets). */
export function urlHost(host: string): string {
  const h = normalizeHost(host);
  return isIP(h) === 6 ? `[${h}]` : h;
}
