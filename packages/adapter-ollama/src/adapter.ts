import { defineAdapter } from '@toolbridge/adapter-kit';
import {
  InvalidRequestError,
  TimeoutError,
  ToolbridgeError,
  type CallContext,
  type CompletionRequest,
  type CompletionResult,
  type DetectResult,
  type ToolAdapter,
} from '@toolbridge/core';
import { abortReasonOf } from '@toolbridge/core/runtime';
import { chatTurn } from './chat.js';
import { getJson, listModels, postStream, type Connection, type OllamaChunk } from './client.js';
import { ollamaConfig, TOOL_ID } from './config.js';
import { ModelCapabilities, resolveModel, sameModel } from './models.js';
import { metadataOf, optionsOf, usageOf } from './events.js';
import { resolveBaseUrl } from './host.js';
import type { OllamaAdapterOptions } from './options.js';

/** The Ollama runtime: chat, completion and model listing over its local HTTP API. */
export function createOllamaAdapter(options: OllamaAdapterOptions = {}): ToolAdapter {
  const probeTimeoutMs = options.probeTimeoutMs ?? 3000;
  const connectionFor = (ctx: CallContext): Connection => ({
    // Resolved per call so a test (or a user) can swap fetch after creating the adapter.
    fetch: options.fetch ?? globalThis.fetch,
    baseUrl: resolveBaseUrl(ctx.config),
    firstByteTimeoutMs: options.firstByteTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
  });

  const capabilities = new ModelCapabilities(probeTimeoutMs);
  const throttle = { intervalMs: options.reasoningUpdateMs };
  const modelFor = (requested: string | undefined, conn: Connection, ctx: CallContext) =>
    resolveModel(requested, ollamaConfig.read(ctx.config).model, conn, ctx.signal);

  async function detect(ctx: CallContext): Promise<DetectResult> {
    const conn = connectionFor(ctx);
    const probe = new AbortController();
    const timer = setTimeout(
      () =>
        probe.abort(
          new TimeoutError(`Ollama at ${conn.baseUrl} did not answer within ${probeTimeoutMs} ms`, {
            toolId: TOOL_ID,
            timeoutMs: probeTimeoutMs,
          }),
        ),
      probeTimeoutMs,
    );
    const signal = AbortSignal.any([ctx.signal, probe.signal]);
    try {
      const [version, models] = await Promise.all([getJson(conn, '/api/version', signal), listModels(conn, signal)]);
      if (typeof version.version !== 'string' || version.version.length === 0) {
        return { available: false, models: [], reason: `${conn.baseUrl}/api/version did not report a version; is this an Ollama server?` };
      }
      const wanted = ollamaConfig.read(ctx.config).model;
      const defaultModel = (wanted && models.find((m) => sameModel(m, wanted))) ?? models[0];
      const vision = defaultModel !== undefined && (await seesImages(conn, defaultModel, signal, ctx.signal));
      return {
        available: true,
        version: version.version,
        models,
        ...(defaultModel ? { defaultModel } : {}),
        ...(vision ? { capabilities: ['vision' as const] } : {}),
      };
    } catch (e) {
      // The caller's deadline or cancel is not a verdict on Ollama: let it surface.
      if (ctx.signal.aborted) throw abortReasonOf(ctx.signal, TOOL_ID);
      const reason = ToolbridgeError.isInstance(e) ? e.message : `Ollama at ${conn.baseUrl} could not be checked`;
      return { available: false, models: [], reason };
    } finally {
      clearTimeout(timer);
      probe.abort();
    }
  }

  /**
   * Whether a model takes images. A model Ollama cannot describe in time is taken as one that
   * does not: the server answered its version and models, so it is available all the same.
   */
  async function seesImages(conn: Connection, model: string, signal: AbortSignal, caller: AbortSignal): Promise<boolean> {
    try {
      return (await capabilities.of(conn, model, signal)).includes('vision');
    } catch (e) {
      if (caller.aborted) throw e;
      return false;
    }
  }

  async function complete(request: CompletionRequest, ctx: CallContext): Promise<CompletionResult> {
    if (typeof request !== 'object' || request === null || typeof request.prompt !== 'string' || request.prompt.length === 0) {
      throw new InvalidRequestError('completion request needs a non-empty string "prompt"', { toolId: TOOL_ID });
    }
    if (request.maxTokens !== undefined && !(Number.isInteger(request.maxTokens) && request.maxTokens >= 1)) {
      throw new InvalidRequestError('completion request "maxTokens" must be an integer >= 1', { toolId: TOOL_ID });
    }
    if (
      request.temperature !== undefined &&
      !(typeof request.temperature === 'number' && request.temperature >= 0 && request.temperature <= 2)
    ) {
      throw new InvalidRequestError('completion request "temperature" must be a number from 0 to 2', { toolId: TOOL_ID });
    }
    const conn = connectionFor(ctx);
    const model = await modelFor(request.model, conn, ctx);
    const body = {
      model,
      prompt: request.prompt,
      ...(request.system !== undefined ? { system: request.system } : {}),
      stream: true,
      ...optionsOf(request),
    };
    let text = '';
    let answeredBy: string | undefined;
    let final: OllamaChunk | undefined;
    for await (const chunk of postStream(conn, '/api/generate', body, model, ctx.signal)) {
      if (typeof chunk.model === 'string') answeredBy = chunk.model;
      if (typeof chunk.response === 'string') text += chunk.response;
      if (chunk.done === true) final = chunk;
    }
    return { text, usage: usageOf(final!), model: answeredBy ?? model, metadata: metadataOf(final!) };
  }

  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: 'Ollama',
    type: 'runtime',
    config: ollamaConfig,
    // No `sessions`: Ollama keeps no conversation, so core sends the transcript every turn.
    // No `permissions`: a model runtime runs no commands and writes no files.
    features: { structuredOutput: 'native', images: true, activity: true },
    detect,
    async usageLimits() {
      return { status: 'unavailable', reason: 'Ollama runs models locally and has no usage limits' };
    },
    async *stream(request, ctx) {
      const conn = connectionFor(ctx);
      yield* chatTurn({ conn, model: await modelFor(request.model, conn, ctx), capabilities, throttle }, request, ctx);
    },
    complete,
  });
}
