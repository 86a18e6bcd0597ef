import { ProviderExecutionError, RateLimitError, TimeoutError, ToolUnavailableError, ToolbridgeError } from '@toolbridge/core';

export { TOOL_ID } from './config.js';
import { TOOL_ID } from './config.js';

/** The first system error code found on a fetch failure's cause chain (undici nests them). */
export function errorCodeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (typeof e === 'object' && e !== null && !seen.has(e)) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    // Happy-eyeballs failures are AggregateErrors of one error per address.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) {
      for (const x of inner) {
        const c = errorCodeOf(x);
        if (c) return c;
      }
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const REFUSED = new Set(['ECONNREFUSED']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const TIMED_OUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Classify a fetch that failed before Ollama answered (the signal did not abort). */
export function connectionFailure(error: unknown, baseUrl: string): ToolbridgeError {
  const code = errorCodeOf(error);
  const opts = { toolId: TOOL_ID, cause: error, details: code ? { code } : undefined };
  if (code && REFUSED.has(code)) {
    return new ToolUnavailableError(`Ollama is not running at ${baseUrl} (connection refused); start it with \`ollama serve\``, opts);
  }
  if (code && RESET.has(code)) {
    return new ToolUnavailableError(`The connection to Ollama at ${baseUrl} was closed before it answered (${code})`, {
      ...opts,
      retryable: true,
    });
  }
  if (code && UNREACHABLE.has(code)) {
    return new ToolUnavailableError(`Ollama at ${baseUrl} cannot be reached (${code})`, opts);
  }
  if (code && TIMED_OUT.has(code)) {
    return new TimeoutError(`Ollama at ${baseUrl} did not answer in time (${code})`, opts);
  }
  return new ToolUnavailableError(`Ollama at ${baseUrl} cannot be reached${code ? ` (${code})` : ''}`, opts);
}

/** Classify a connection lost while an answer was streaming. */
export function streamFailure(error: unknown, baseUrl: string): ToolbridgeError {
  if (ToolbridgeError.isInstance(error)) return error;
  const code = errorCodeOf(error);
  return new ProviderExecutionError(
    `The connection to Ollama at ${baseUrl} was lost before the answer was complete${code ? ` (${code})` : ''}`,
    { toolId: TOOL_ID, cause: error, retryable: true, details: code ? { code } : undefined },
  );
}

/** Ollama's own text from an error body (`{"error": "..."}`), else the raw text. */
export function ollamaMessage(bodyText: string): string {
  let message = bodyText.trim();
  try {
    const parsed: unknown = JSON.parse(bodyText);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      const e = (parsed as { error: unknown }).error;
      message = typeof e === 'string' ? e : JSON.stringify(e);
    }
  } catch {
    // Not JSON (a proxy's HTML page, `404 page not found`): keep the text.
  }
  return message.length > 500 ? message.slice(0, 500) + '…' : message;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function isBusy(message: string): boolean {
  return /server busy|maximum pending requests/i.test(message);
}

/** Whether a 404's text says the model is missing (old and new Ollama wordings). */
export function isModelNotFound(message: string): boolean {
  return /model\b.*\bnot found/i.test(message);
}

/** Classify an HTTP error answer that is not "model not found" (handled by the caller, which can list models). */
export function httpFailure(status: number, headers: Headers, bodyText: string, path: string): ToolbridgeError {
  const message = ollamaMessage(bodyText);
  const said = message ? `: ${message}` : '';
  if (status === 429 || isBusy(message)) {
    return new RateLimitError(`Ollama is busy (HTTP ${status})${said}`, {
      toolId: TOOL_ID,
      retryAfterMs: parseRetryAfter(headers.get('retry-after')),
      details: { status },
    });
  }
  return new ProviderExecutionError(`Ollama ${path} failed with HTTP ${status}${said}`, {
    toolId: TOOL_ID,
    retryable: status >= 500,
    details: { status },
  });
}

/** An `{"error": ...}` object inside a stream that had started fine. */
export function streamErrorFailure(error: unknown): ToolbridgeError {
  const message = typeof error === 'string' ? error : JSON.stringify(error);
  if (isBusy(message)) return new RateLimitError(`Ollama is busy: ${message}`, { toolId: TOOL_ID });
  return new ProviderExecutionError(`Ollama failed while answering: ${message}`, { toolId: TOOL_ID });
}
