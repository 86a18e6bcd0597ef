/**
 * How long a provider asked us to wait: `retry-after-ms`, or `retry-after` as seconds or an HTTP
 * date. Header names are matched case-insensitively; undefined when none is usable.
 */
export function retryAfterMs(headers: Record<string, string | undefined> | Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name && typeof v === 'string') return v;
    return undefined;
  };
  const ms = get('retry-after-ms')?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  return parseRetryAfter(get('retry-after'), now);
}

/** One `Retry-After` value: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  const ra = value?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
