import { ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';

type Json = Record<string, unknown>;

/** One event of `opencode serve`'s `GET /global/event` stream: `{directory, payload: {type, properties}}`. */
export interface ServeEvent {
  type: string;
  properties: Json;
}

/** An HTTP error answer of the server (404 `NotFoundError` for an unknown session, 500 `UnknownError` ...). */
export class ServeHttpError extends ProviderExecutionError {
  constructor(
    readonly status: number,
    readonly errorName: string,
    message: string,
  ) {
    super(message, { toolId: TOOL_ID, details: { statusCode: status, errorName } });
  }
}

export interface RequestOptions {
  /** The instance directory (`x-opencode-directory`): where the session's agent works. */
  directory?: string;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * HTTP to one `opencode serve` on loopback, with its per-server Basic-auth password (every route,
 * `/global/health` and `/event` too, answers 401 without it: research FACTS §1.1).
 */
export class ServeClient {
  private readonly auth: string;

  constructor(
    readonly url: string,
    password: string,
    /** Called when the server cannot be reached at all (connection refused or reset on loopback: it is gone). */
    private readonly onUnreachable: () => void = () => undefined,
  ) {
    this.auth = `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}`;
  }

  /** A JSON call; non-2xx answers reject with ServeHttpError, a passed `timeoutMs` with TimeoutError. */
  async request<T = Json>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const timeout = o.timeoutMs !== undefined ? AbortSignal.timeout(o.timeoutMs) : undefined;
    const signal = timeout && o.signal ? AbortSignal.any([timeout, o.signal]) : (timeout ?? o.signal);
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers: {
          authorization: this.auth,
          ...(o.directory ? { 'x-opencode-directory': encodeURIComponent(o.directory) } : {}),
          ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (o.signal?.aborted) throw o.signal.reason;
      if (timeout?.aborted)
        throw new TimeoutError(`OpenCode's server did not answer ${method} ${path} within ${o.timeoutMs} ms`, { toolId: TOOL_ID });
      // A reused keep-alive socket can fail once on a live server: it is gone only if it does not answer a health probe either.
      if (!(await this.healthy())) this.onUnreachable();
      throw new ProviderExecutionError(`OpenCode's server could not be reached (${(e as Error).message})`, {
        toolId: TOOL_ID,
        retryable: true,
      });
    }
    const text = await res.text();
    const body = text ? parse(text) : undefined;
    if (!res.ok) {
      const err = (body ?? {}) as { name?: string; data?: { message?: string } };
      const name = typeof err.name === 'string' ? err.name : `HTTP ${res.status}`;
      const message = err.data?.message ?? text.slice(0, 200);
      throw new ServeHttpError(
        res.status,
        name,
        `OpenCode's server answered ${method} ${path.split('?')[0]} with ${res.status} ${name}: ${message}`,
      );
    }
    return body as T;
  }

  /** Whether `GET /global/health` answers (within 2 s). */
  private async healthy(): Promise<boolean> {
    try {
      const res = await fetch(`${this.url}/global/health`, { headers: { authorization: this.auth }, signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  /**
   * Follow `GET /global/event` (every directory's events on one connection), calling `onEvent` per
   * frame. Resolves once connected; `ended` settles when the stream stops (server gone, `close`).
   */
  async subscribe(onEvent: (e: ServeEvent) => void, signal: AbortSignal, timeoutMs: number): Promise<{ ended: Promise<void> }> {
    // The bound is on the answer's headers only: the stream itself lasts as long as the server.
    const connect = new AbortController();
    const timer = setTimeout(() => connect.abort(), timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.url}/global/event`, {
        headers: { authorization: this.auth, accept: 'text/event-stream' },
        signal: AbortSignal.any([signal, connect.signal]),
      });
    } catch (e) {
      if (connect.signal.aborted)
        throw new TimeoutError(`OpenCode's event stream did not open within ${timeoutMs} ms`, { toolId: TOOL_ID });
      throw new ProviderExecutionError(`OpenCode's event stream could not be opened (${(e as Error).message})`, {
        toolId: TOOL_ID,
        retryable: true,
      });
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok || !res.body) throw new ProviderExecutionError(`OpenCode's event stream answered ${res.status}`, { toolId: TOOL_ID });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const ended = (async () => {
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += decoder.decode(value, { stream: true });
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const data = block
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trimStart())
              .join('\n');
            const frame = parse(data);
            const payload = frame?.payload as Json | undefined;
            if (payload && typeof payload.type === 'string') {
              onEvent({ type: payload.type, properties: (payload.properties ?? {}) as Json });
            }
          }
        }
      } catch {
        // aborted or the connection broke: the caller treats both as the end of the server
      }
    })();
    return { ended };
  }
}

function parse(text: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** The session an event belongs to (top-level `sessionID`, or that of its part or message info). */
export function sessionOf(e: ServeEvent): string | undefined {
  const p = e.properties;
  const direct = p.sessionID;
  if (typeof direct === 'string') return direct;
  for (const k of ['part', 'info']) {
    const inner = p[k] as Json | undefined;
    if (inner && typeof inner.sessionID === 'string') return inner.sessionID;
  }
  return undefined;
}
