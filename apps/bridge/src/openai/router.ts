import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { AbortedError, ToolUnavailableError, type ChatRequest } from '@toolbridge/core';
import { quoted } from '@toolbridge/core/runtime';
import type { PermissionLevel, Toolbridge, ToolStreamEvent } from 'toolbridge';
import { chunkFactory, toChatCompletion } from './completions.js';
import { fromExposedHttpError } from '../http-errors.js';
import { OpenAIRequestError, modelNotFound, sendOpenAIError, toOpenAIError } from './errors.js';
import { listsModel, modelIdsOf, parseModelId, toOpenAIModels } from './models.js';
import { parseChatCompletionRequest, type ChatCompletionRequest } from './request.js';
import { relaySse } from '../relay.js';

export interface OpenAIRouterOptions {
  /** The library instance whose tools the endpoints serve. */
  toolbridge: Pick<Toolbridge, 'registry' | 'chatWith' | 'streamWith'>;
  /**
   * Deadline of one chat completion, in ms (default 10 minutes). OpenAI's API
   * has no per-request timeout field, so the server sets it; past it the tool's
   * process is killed and the caller gets a 504 (or an error event mid-stream).
   */
  chatTimeoutMs?: number;
  /** Body size limit when this router parses JSON itself (default `16mb`, as the bridge). */
  bodyLimit?: string | number;
  /** Interval of SSE keep-alive comments (default 15 s). */
  sseKeepAliveMs?: number;
  /** The most an agent may be allowed in a completion (the bridge's `maxPermissionsOf`); unset, no ceiling. */
  maxPermissions?: PermissionLevel;
}

export const DEFAULT_CHAT_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * The OpenAI-compatible API: `GET /models`, `GET /models/{id}` and
 * `POST /chat/completions`, meant to be mounted at `/v1` behind the bridge's
 * security middleware. Every failure answers in OpenAI's error shape.
 *
 * For the bridge's request log it leaves `route`, `toolId`, `stream` and
 * `errorCode` in `res.locals` (never prompts or answers).
 */
export function createOpenAIRouter(options: OpenAIRouterOptions): Router {
  const { toolbridge } = options;
  const registry = toolbridge.registry;
  const chatTimeoutMs = options.chatTimeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS;
  const startedAt = Math.floor(Date.now() / 1000);
  const router = Router();

  // A no-op when the parent app already parsed the body; parse errors then land in our error handler.
  router.use(express.json({ limit: options.bodyLimit ?? '16mb' }));

  router.get('/models', async (req, res) => {
    logRoute(req, res);
    const tools = await registry.discover();
    res.json({ object: 'list', data: toOpenAIModels(tools, startedAt) });
  });

  router.get('/models/*id', async (req, res) => {
    logRoute(req, res);
    const id = ([] as string[]).concat((req.params as { id: string | string[] }).id).join('/');
    const { toolId } = parseModelId(id);
    if (!registry.has(toolId)) throw modelNotFound(id);
    const tool = await registry.tool(toolId);
    const model = toOpenAIModels([tool], startedAt).find((m) => m.id === id);
    if (!model) throw modelNotFound(id, tool.available ? undefined : tool.reason);
    res.json(model);
  });

  router.post('/chat/completions', async (req, res) => {
    logRoute(req, res);
    const body = parseChatCompletionRequest(req.body);
    if (body.stream) res.locals.stream = true;
    const { toolId, model } = parseModelId(body.model);
    if (!registry.has(toolId)) throw modelNotFound(body.model, `no tool is called ${quoted(toolId)}`);
    res.locals.toolId = toolId;

    const tool = await registry.tool(toolId);
    if (!tool.available) throw new ToolUnavailableError(tool.reason ?? `${tool.name} is not available`, { toolId });
    // Runtimes list every model they have; agents list only configured ones and accept others.
    if (model && tool.capabilities.includes('model-list') && !listsModel(tool, model)) {
      const known = modelIdsOf(tool).slice(1);
      throw modelNotFound(
        body.model,
        `${tool.name} has no model ${quoted(model)}${known.length ? ` (available: ${known.join(', ')})` : ''}`,
      );
    }

    const request: ChatRequest = {
      messages: body.messages,
      ...(model ? { model } : {}),
      ...(body.maxTokens !== undefined ? { maxTokens: body.maxTokens } : {}),
      ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
      ...(body.responseFormat ? { responseFormat: body.responseFormat } : {}),
      ...(body.sessionId ? { sessionId: body.sessionId } : {}),
    };

    // A caller that goes away must not leave the tool running.
    const disconnect = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) disconnect.abort(new AbortedError('The client disconnected', { toolId }));
    });
    const callOptions = { timeoutMs: chatTimeoutMs, signal: disconnect.signal, maxPermissions: options.maxPermissions };

    if (!body.stream) {
      const response = await toolbridge.chatWith(toolId, request, callOptions);
      if (disconnect.signal.aborted) return;
      res.json(toChatCompletion(response, body.model));
      return;
    }
    await streamCompletion(
      res,
      body,
      toolbridge.streamWith(toolId, request, callOptions),
      disconnect.signal,
      toolId,
      options.sseKeepAliveMs ?? 15_000,
    );
  });

  router.use((req: Request) => {
    throw new OpenAIRequestError(404, `Invalid URL (${req.method} ${req.baseUrl}${req.path})`, null, 'unknown_url');
  });

  // Four parameters make this Express's error handler for everything above, including JSON parse errors.
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent || res.destroyed) {
      if (!res.writableEnded) res.end();
      return;
    }
    sendOpenAIError(res, fromExposedHttpError(error) ?? error);
  });

  return router;
}

/** The bridge's request log reads `res.locals` (route, toolId, stream, errorCode); never the body. */
function logRoute(req: Request, res: Response): void {
  res.locals.route = `${req.baseUrl}${String(req.route?.path ?? '')}`;
}

/**
 * Relay a tool's stream as `chat.completion.chunk` events, through the bridge's one SSE relay.
 * Nothing is sent until the first text (or the result) arrives, so failures before that — not
 * logged in, rate limited, crashed at start — are ordinary HTTP errors with their status. After
 * that, a failure is a final `data: {"error": ...}` event with no `[DONE]`, so a client can never
 * mistake it for a complete answer. Activity (reasoning, commands) has no place in Chat
 * Completions chunks; the final chunk carries Toolbridge's `session_id`.
 */
function streamCompletion(
  res: Response,
  body: ChatCompletionRequest,
  events: AsyncIterable<ToolStreamEvent>,
  disconnected: AbortSignal,
  toolId: string,
  keepAliveMs: number,
): Promise<void> {
  const chunks = chunkFactory(body.model, body.includeUsage);
  let started = false;
  let sentText = false;
  const frame = (data: unknown, final = false) => ({ event: 'chunk', data, final });
  const opening = () => (started ? [] : ((started = true), [frame(chunks.delta({ role: 'assistant', content: '' }))]));
  return relaySse<ToolStreamEvent>(res, events, {
    dialect: 'openai',
    keepAliveMs,
    signal: disconnected,
    toolId,
    error: (err) => {
      const { body: failure } = toOpenAIError(err);
      return { payload: failure, code: failure.error.code ?? failure.error.type };
    },
    frames: (event) => {
      if (event.type === 'delta') {
        if (!event.text) return [];
        sentText = true;
        return [...opening(), frame(chunks.delta({ content: event.text }))];
      }
      if (event.type !== 'done') return [];
      const r = event.response;
      const session = r.sessionId ? { session_id: r.sessionId } : {};
      return [
        ...opening(),
        // Tools that report no deltas still stream their answer, in one piece.
        ...(!sentText && r.result.message.content ? [frame(chunks.delta({ content: r.result.message.content }))] : []),
        frame({ ...chunks.delta({}, 'stop'), ...session }, !body.includeUsage),
        ...(body.includeUsage ? [frame({ ...chunks.usage(r.result.usage), ...session }, true)] : []),
      ];
    },
  });
}
