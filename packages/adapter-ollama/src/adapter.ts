import {
  collectStream,
  InvalidRequestError,
  RUNTIME_CAPABILITIES,
  TimeoutError,
  ToolbridgeError,
  type CallContext,
  type ChatRequest,
  type CompletionRequest,
  type CompletionResult,
  type ConfigKeySchema,
  type DetectResult,
  type StreamEvent,
  type ToolAdapter,
} from '@toolbridge/core';
import { getJson, listModels, postStream, type Connection, type OllamaChunk } from './client.js';
import { abortFailure, TOOL_ID } from './failures.js';
import { normalizeOllamaHost, resolveBaseUrl } from './host.js';
import { metadataOf, optionsOf, usageOf } from './results.js';

export interface OllamaAdapterOptions {
  /** The fetch to use (default: the global one, whose undici agent keeps connections alive). */
  fetch?: typeof globalThis.fetch;
  /** Bound on `/api/version` and `/api/tags` during detection and health checks (default 3000 ms). */
  probeTimeoutMs?: number;
  /**
   * Bound on the wait for Ollama to start answering a chat or completion.
   * Unset by default: loading a large model into memory can take minutes, and
   * the call's own deadline already bounds the whole request.
   */
  firstByteTimeoutMs?: number;
  /** Bound on one answer's bytes as Ollama streams it (default 32 MiB); beyond it the call fails with ProviderExecutionError. */
  maxResponseBytes?: number;
}

const configSchema: Record<string, ConfigKeySchema> = {
  ollamaHost: {
    type: 'string',
    format: 'http-url',
    description: 'Base URL of the Ollama server (default http://127.0.0.1:11434)',
    env: ['TOOLBRIDGE_OLLAMA_HOST', 'OLLAMA_HOST'],
    fromEnv: normalizeOllamaHost,
  },
  ollamaModel: {
    type: 'string',
    minLength: 1,
    description: 'Model to use when a request names none (default: the first installed model)',
  },
};

/** `llama3.2` and `llama3.2:latest` name the same model. */
function sameModel(a: string, b: string): boolean {
  const full = (name: string) => (name.includes(':') ? name : `${name}:latest`);
  return full(a) === full(b);
}

function configuredModel(ctx: CallContext): string | undefined {
  const m = ctx.config.ollamaModel;
  return typeof m === 'string' && m.length > 0 ? m : undefined;
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
    const model = requested ?? configuredModel(ctx);
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
      const wanted = configuredModel(ctx);
      const defaultModel = (wanted && models.find((m) => sameModel(m, wanted))) ?? models[0];
      return { available: true, version: version.version, models, ...(defaultModel ? { defaultModel } : {}) };
    } catch (e) {
      // The caller's deadline or cancel is not a verdict on Ollama: let it surface.
      if (ctx.signal.aborted) throw abortFailure(ctx.signal);
      const reason = ToolbridgeError.isInstance(e) ? e.message : `Ollama at ${conn.baseUrl} could not be checked`;
      return { available: false, models: [], reason };
    } finally {
      clearTimeout(timer);
      probe.abort();
    }
  }

  async function* stream(request: ChatRequest, ctx: CallContext): AsyncGenerator<StreamEvent, void, undefined> {
    const conn = connectionFor(ctx);
    const model = await resolveModel(request.model, conn, ctx);
    const body = {
      model,
      // Roles stay roles: Ollama applies the model's own chat template.
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      stream: true,
      ...optionsOf(request),
    };
    let text = '';
    let answeredBy: string | undefined;
    let final: OllamaChunk | undefined;
    for await (const chunk of postStream(conn, '/api/chat', body, model, ctx.signal)) {
      if (typeof chunk.model === 'string') answeredBy = chunk.model;
      const message = chunk.message as { content?: unknown; thinking?: unknown } | undefined;
      if (typeof message?.thinking === 'string' && message.thinking.length > 0) {
        yield { type: 'progress', item: { kind: 'reasoning', text: message.thinking } };
      }
      if (typeof message?.content === 'string' && message.content.length > 0) {
        text += message.content;
        yield { type: 'delta', text: message.content };
      }
      if (chunk.done === true) final = chunk;
    }
    // postStream throws rather than end without the final chunk.
    const last = final!;
    yield {
      type: 'result',
      result: {
        message: { role: 'assistant', content: text },
        usage: usageOf(last),
        model: answeredBy ?? model,
        metadata: metadataOf(last),
      },
    };
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

  return {
    id: TOOL_ID,
    name: 'Ollama',
    type: 'runtime',
    capabilities: RUNTIME_CAPABILITIES,
    configSchema,
    detect,
    async usageLimits() {
      return { status: 'unavailable', reason: 'Ollama runs models locally and has no usage limits' };
    },
    chat: (request, ctx) => collectStream(stream(request, ctx), 'ollama'),
    stream,
    complete,
  };
}
