import { defineAdapter } from '@toolbridge/adapter-kit';
import {
  abortReasonOf,
  InvalidRequestError,
  TimeoutError,
  ToolbridgeError,
  type CallContext,
  type CompletionRequest,
  type CompletionResult,
  type DetectResult,
  type ToolAdapter,
} from '@toolbridge/core';
import { chatTurn } from './chat.js';
import { getJson, listModels, postStream, type Connection, type OllamaChunk } from './client.js';
import { ollamaConfig, TOOL_ID } from './config.js';
import { metadataOf, optionsOf, usageOf } from './events.js';
import { resolveBaseUrl } from './host.js';
import type { OllamaAdapterOptions } from './options.js';

/** `llama3.2` and `llama3.2:latest` name the same model. */
function sameModel(a: string, b: string): boolean {
  const full = (name: string) => (name.includes(':') ? name : `${name}:latest`);
  return full(a) === full(b);
}

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

  const resolveModel = async (requested: string | undefined, conn: Connection, ctx: CallContext): Promise<string> => {
    const model = requested ?? ollamaConfig.read(ctx.config).model;
    if (model) return model;
    const installed = await listModels(conn, ctx.signal);
    if (installed.length === 0) {
      throw new InvalidRequestError('No Ollama model is installed; pull one first (e.g. `ollama pull llama3.2`) or name one', {
        toolId: TOOL_ID,
      });
    }
    return installed[0]!;
  };

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
      return { available: true, version: version.version, models, ...(defaultModel ? { defaultModel } : {}) };
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
    const model = await resolveModel(request.model, conn, ctx);
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
    id: TOOL_ID,
    name: 'Ollama',
    type: 'runtime',
    config: ollamaConfig,
    detect,
    async usageLimits() {
      return { status: 'unavailable', reason: 'Ollama runs models locally and has no usage limits' };
    },
    async *stream(request, ctx) {
      const conn = connectionFor(ctx);
      yield* chatTurn(conn, await resolveModel(request.model, conn, ctx), request, ctx);
    },
    complete,
  });
}
