import { InvalidRequestError, ProviderExecutionError, TimeoutError, ToolbridgeError } from '@toolbridge/core';
import { abortReasonOf } from '@toolbridge/core/runtime';
import { connectionFailure, httpFailure, isModelNotFound, ollamaMessage, streamErrorFailure, streamFailure, TOOL_ID } from './failures.js';
import { readNdjson } from './ndjson.js';

/** How to reach one Ollama server. */
export interface Connection {
  fetch: typeof globalThis.fetch;
  /** Base URL without a trailing slash. */
  baseUrl: string;
  /** Bound on the wait for response headers of a streaming call; none when undefined. */
  firstByteTimeoutMs?: number;
  /** Bound on a streamed answer's bytes (default 32 MiB). */
  maxResponseBytes?: number;
}

/** Bound on the small JSON bodies (version, model list, errors): whatever answers on Ollama's port cannot flood us. */
const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

/** The body as text, at most `maxBytes` of it; `undefined` when it is longer (the rest is not read). */
async function boundedText(res: Response, maxBytes: number): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One NDJSON object of `/api/chat` or `/api/generate`. */
export type OllamaChunk = Record<string, unknown>;

async function send(
  conn: Connection,
  path: string,
  init: { method: string; body?: unknown; accept?: string },
  signal: AbortSignal,
): Promise<Response> {
  try {
    return await conn.fetch(conn.baseUrl + path, {
      method: init.method,
      headers: {
        accept: init.accept ?? 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal,
    });
  } catch (e) {
    if (signal.aborted) throw abortReasonOf(signal, TOOL_ID);
    throw connectionFailure(e, conn.baseUrl);
  }
}

/** GET a JSON object (`/api/version`, `/api/tags`). */
export function getJson(conn: Connection, path: string, signal: AbortSignal): Promise<Record<string, unknown>> {
  return jsonCall(conn, path, signal);
}

/**
 * `POST /api/show` for one model: its details and `capabilities` (`completion`, `vision`,
 * `tools`, `thinking`, ...). A model Ollama does not have is the same InvalidRequestError a chat gets.
 */
export function showModel(conn: Connection, model: string, signal: AbortSignal): Promise<Record<string, unknown>> {
  return jsonCall(conn, '/api/show', signal, { model });
}

/** One small JSON exchange: GET, or POST with a body (`model` set: a 404 "model not found" names it). */
async function jsonCall(conn: Connection, path: string, signal: AbortSignal, post?: { model: string }): Promise<Record<string, unknown>> {
  const res = await send(conn, path, post ? { method: 'POST', body: post } : { method: 'GET' }, signal);
  let text: string | undefined;
  try {
    text = await boundedText(res, MAX_JSON_BODY_BYTES);
  } catch (e) {
    if (signal.aborted) throw abortReasonOf(signal, TOOL_ID);
    throw streamFailure(e, conn.baseUrl);
  }
  if (text === undefined) {
    throw new ProviderExecutionError(
      `${conn.baseUrl}${path} answered with more than ${MAX_JSON_BODY_BYTES} bytes; is this an Ollama server?`,
      { toolId: TOOL_ID },
    );
  }
  if (!res.ok) {
    const message = ollamaMessage(text);
    if (post && res.status === 404 && isModelNotFound(message)) throw await modelNotFound(conn, post.model, message, signal);
    throw httpFailure(res.status, res.headers, text, path);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProviderExecutionError(`${conn.baseUrl}${path} did not answer with a JSON object; is this an Ollama server?`, {
      toolId: TOOL_ID,
    });
  }
  return value as Record<string, unknown>;
}

/** Names of the installed models, in Ollama's order. */
export async function listModels(conn: Connection, signal: AbortSignal): Promise<string[]> {
  const tags = await getJson(conn, '/api/tags', signal);
  const models = Array.isArray(tags.models) ? tags.models : [];
  const names: string[] = [];
  for (const m of models) {
    if (typeof m !== 'object' || m === null) continue;
    const name = (m as { name?: unknown; model?: unknown }).name ?? (m as { model?: unknown }).model;
    if (typeof name === 'string' && name.length > 0) names.push(name);
  }
  return names;
}

async function modelNotFound(conn: Connection, model: string, message: string, signal: AbortSignal): Promise<ToolbridgeError> {
  let installed: string[] | undefined;
  try {
    installed = await listModels(conn, signal);
  } catch {
    installed = undefined; // The 404 is the news; an unlisted inventory only weakens the hint.
  }
  const list =
    installed === undefined ? '' : installed.length === 0 ? ' No models are installed.' : ` Installed models: ${installed.join(', ')}.`;
  return new InvalidRequestError(`Ollama has no model "${model}" (${message}).${list} Pull it with \`ollama pull ${model}\`.`, {
    toolId: TOOL_ID,
    details: { model, ...(installed ? { installed } : {}) },
  });
}

/**
 * POST a streaming request and yield its NDJSON objects as they arrive, up
 * to and including the one with `done: true`. Throws instead of ending early:
 * a stream without `done: true` is a failure, never a partial answer.
 */
export async function* postStream(
  conn: Connection,
  path: string,
  body: Record<string, unknown>,
  model: string,
  outer: AbortSignal,
): AsyncGenerator<OllamaChunk, void, undefined> {
  const own = new AbortController();
  const signal = AbortSignal.any([outer, own.signal]);
  let timer: NodeJS.Timeout | undefined;
  if (conn.firstByteTimeoutMs !== undefined && conn.firstByteTimeoutMs > 0) {
    const ms = conn.firstByteTimeoutMs;
    timer = setTimeout(
      () =>
        own.abort(
          new TimeoutError(`Ollama did not start answering within ${ms} ms (is the model still loading?)`, {
            toolId: TOOL_ID,
            timeoutMs: ms,
          }),
        ),
      ms,
    );
  }
  let complete = false;
  try {
    const res = await send(conn, path, { method: 'POST', body, accept: 'application/x-ndjson' }, signal);
    clearTimeout(timer);
    if (!res.ok) {
      let text = '';
      try {
        // An error body longer than this is not a message anyone can read.
        text = (await boundedText(res, 64 * 1024)) ?? '';
      } catch (e) {
        if (signal.aborted) throw abortReasonOf(signal, TOOL_ID);
      }
      const message = ollamaMessage(text);
      if (res.status === 404 && isModelNotFound(message)) throw await modelNotFound(conn, model, message, outer);
      throw httpFailure(res.status, res.headers, text, path);
    }
    if (!res.body) throw new ProviderExecutionError(`Ollama ${path} answered without a body`, { toolId: TOOL_ID });
    let sawDone = false;
    try {
      for await (const chunk of readNdjson(res.body, { toolId: TOOL_ID, maxBytes: conn.maxResponseBytes })) {
        if (sawDone) continue;
        if (chunk.error !== undefined) throw streamErrorFailure(chunk.error);
        yield chunk;
        if (chunk.done === true) sawDone = true;
      }
    } catch (e) {
      if (signal.aborted) throw abortReasonOf(signal, TOOL_ID);
      // Trouble after the final chunk cannot spoil a complete answer.
      if (!sawDone) throw streamFailure(e, conn.baseUrl);
    }
    if (!sawDone) {
      throw new ProviderExecutionError('Ollama ended its answer without the final chunk (done: true); the answer is incomplete', {
        toolId: TOOL_ID,
        retryable: true,
      });
    }
    complete = true;
  } finally {
    clearTimeout(timer);
    // A consumer that stops early, or any failure, must not leave the request open.
    if (!complete) own.abort();
  }
}
