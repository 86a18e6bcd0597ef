import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { AbortedError, ProviderExecutionError, quoted, ToolUnavailableError, type ChatRequest, type ChatResult } from '@toolbridge/core';
import type { Toolbridge } from 'toolbridge';
import { chunkFactory, toChatCompletion } from './completions.js';
import { fromExposedHttpError } from '../http-errors.js';
import { OpenAIRequestError, modelNotFound, sendOpenAIError, toOpenAIError } from './errors.js';
import { listsModel, modelIdsOf, parseModelId, toOpenAIModels } from './models.js';
import { parseChatCompletionRequest, type ChatCompletionRequest } from './request.js';
import { openSse } from './sse.js';

export interface OpenAIRouterOptions {
  /** The library instance whose tools the endpoints serve (only its `registry` is used). */
  toolbridge: Pick<Toolbridge, 'registry'>;
  /**
   * Deadline of one chat completion, in ms (default 10 minutes). OpenAI's API
   * has no per-request timeout field, so the server sets it; past it the tool's
   * process is killed and the caller gets a 504 (or an error event mid-stream).
   */
  chatTimeoutMs?: number;
  /** Body size limit when this router parses JSON itself (default `1mb`). */
  bodyLimit?: string | number;
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
  const registry = options.toolbridge.registry;
  const chatTimeoutMs = options.chatTimeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS;
  const startedAt = Math.floor(Date.now() / 1000);
  const router = Router();

  // A no-op when the parent app already parsed the body; parse errors then land in our error handler.
  router.use(express.json({ limit: options.bodyLimit ?? '1mb' }));

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
    };

    // A caller that goes away must not leave the tool running.
    const disconnect = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) disconnect.abort(new AbortedError('The client disconnected', { toolId }));
    });
    const callOptions = { timeoutMs: chatTimeoutMs, signal: disconnect.signal };

    if (!body.stream) {
      const result = await registry.chat(toolId, request, callOptions);
      if (disconnect.signal.aborted) return;
      res.json(toChatCompletion(result, body.model));
      return;
    }
    await streamCompletion(res, body, registry.stream(toolId, request, callOptions), disconnect.signal, toolId);
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
 * Relay a tool's stream as `chat.completion.chunk` events. Nothing is sent
 * until the first text (or the result) arrives, so failures before that — not
 * logged in, rate limited, crashed at start — are ordinary HTTP errors with
 * their status. After that, a failure is a final `data: {"error": ...}` event
 * with no `[DONE]`, so a client can never mistake it for a complete answer.
 */
async function streamCompletion(
  res: Response,
  body: ChatCompletionRequest,
  events: AsyncIterable<{ type: string; text?: string; result?: ChatResult }>,
  disconnected: AbortSignal,
  toolId: string,
): Promise<void> {
  const chunks = chunkFactory(body.model, body.includeUsage);
  let sse: ReturnType<typeof openSse> | undefined;
  let sentText = false;
  let result: ChatResult | undefined;
  const start = async () => {
    if (sse) return sse;
    sse = openSse(res);
    await sse.data(chunks.delta({ role: 'assistant', content: '' }));
    return sse;
  };

  try {
    for await (const event of events) {
      if (event.type === 'delta' && event.text) {
        const out = await start();
        await out.data(chunks.delta({ content: event.text }));
        sentText = true;
      } else if (event.type === 'result' && event.result) {
        result = event.result;
      }
      // `progress` items (reasoning, commands) have no place in Chat Completions chunks.
    }
    if (!result) throw new ProviderExecutionError('The tool ended its answer without a result', { toolId });
  } catch (error) {
    if (!sse) throw error;
    if (!disconnected.aborted) {
      const { body: failure } = toOpenAIError(error);
      res.locals.errorCode = failure.error.code ?? failure.error.type;
      await sse.data(failure);
      sse.end();
    }
    return;
  }
  if (disconnected.aborted) return;
  const out = await start();
  // Tools that report no deltas still stream their answer, in one piece.
  if (!sentText && result!.message.content) await out.data(chunks.delta({ content: result!.message.content }));
  await out.data(chunks.delta({}, 'stop'));
  if (body.includeUsage) await out.data(chunks.usage(result!.usage));
  out.done();
}
