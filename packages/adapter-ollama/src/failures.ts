import { classifyFailure, retryAfterMs, type FailureFacts, type FailureTable } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, TimeoutError, ToolUnavailableError, ToolbridgeError } from '@toolbridge/core';

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

const BUSY = /server busy|maximum pending requests/i;

/** Whether a 404's text says the model is missing (old and new Ollama wordings). */
export function isModelNotFound(message: string): boolean {
  return /model\b.*\bnot found/i.test(message);
}

/** An HTTP error answer (with its status, headers and endpoint) or an error inside a stream that had started fine. */
interface OllamaFacts extends FailureFacts {
  headers?: Headers;
  path?: string;
}

const said = (f: OllamaFacts) => (f.text ? `: ${f.text}` : '');
const failed = (f: OllamaFacts) =>
  f.path ? `Ollama ${f.path} failed with HTTP ${f.status}${said(f)}` : `Ollama failed while answering: ${f.text}`;

/** Ollama's failures: busy (429, or its queue full) is a rate limit; a server error may pass on a retry. */
const OLLAMA_FAILURES: FailureTable<OllamaFacts> = {
  name: 'Ollama',
  toolId: TOOL_ID,
  rules: [
    { class: 'rate_limit', status: [429] },
    { class: 'rate_limit', match: BUSY },
    { class: 'transient', when: (f) => (f.status ?? 0) >= 500 },
  ],
  messages: {
    rate_limit: (f) => (f.status !== undefined ? `Ollama is busy (HTTP ${f.status})${said(f)}` : `Ollama is busy${said(f)}`),
    transient: failed,
    failed,
  },
  retryAfterMs: (f) => retryAfterMs(f.headers),
};

/** Classify an HTTP error answer that is not "model not found" (handled by the caller, which can list models). */
export function httpFailure(status: number, headers: Headers, bodyText: string, path: string): ToolbridgeError {
  return classifyFailure({ text: ollamaMessage(bodyText), status, headers, path, details: { status } }, OLLAMA_FAILURES);
}

/** An `{"error": ...}` object inside a stream that had started fine. */
export function streamErrorFailure(error: unknown): ToolbridgeError {
  return classifyFailure({ text: typeof error === 'string' ? error : JSON.stringify(error) }, OLLAMA_FAILURES);
}
