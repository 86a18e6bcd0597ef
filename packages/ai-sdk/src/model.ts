import { randomUUID } from 'node:crypto';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { AbortedError, type Toolbridge } from 'toolbridge';
import { toContent } from './content.js';
import { toAISDKError, type CallTarget } from './errors.js';
import { prepareCall, type ModelTarget, type PreparedCall } from './request.js';
import { toFinishReason, toProviderMetadata, toUsage } from './result.js';
import { StreamPartsBuilder, type ToolbridgeEvent } from './stream-parts.js';

/**
 * One Toolbridge tool, or a fallback chain of tools, as an AI SDK language model (spec v4). Calls
 * run in process through the library: `doGenerate` is one chat, `doStream` the same chat streamed.
 */
export class ToolbridgeLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly provider: string;
  /**
   * Images arrive as bytes, or as `file:` URLs the library reads from disk; every other URL is
   * downloaded by the AI SDK first (tools never fetch remote images).
   */
  readonly supportedUrls: Record<string, RegExp[]> = { 'image/*': [/^file:\/\//] };

  constructor(
    readonly modelId: string,
    private readonly target: ModelTarget,
    private readonly instance: () => Toolbridge,
  ) {
    this.provider = target.kind === 'tool' ? `toolbridge.${target.toolId}` : 'toolbridge.fallback';
  }

  private get callTarget(): CallTarget {
    const t = this.target;
    return t.kind === 'tool'
      ? { modelId: this.modelId, toolId: t.toolId, model: t.model }
      : { modelId: this.modelId, providers: t.providers };
  }

  private options(call: PreparedCall, signal: AbortSignal | undefined) {
    const t = this.target;
    const base = { ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}), ...(signal ? { signal } : {}) };
    if (t.kind === 'tool') return base;
    return {
      ...base,
      providers: t.providers,
      ...(t.settings.retries !== undefined ? { retries: t.settings.retries } : {}),
      ...(t.settings.perAttemptTimeoutMs !== undefined ? { perAttemptTimeoutMs: t.settings.perAttemptTimeoutMs } : {}),
    };
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const tb = this.instance();
    const call = prepareCall(tb, this.target, options);
    const t = this.target;
    try {
      const response =
        t.kind === 'tool'
          ? await tb.chatWith(t.toolId, call.request, this.options(call, options.abortSignal))
          : await tb.chat(call.request, this.options(call, options.abortSignal));
      return {
        content: toContent(response, shortId()),
        finishReason: toFinishReason(response.result.metadata),
        usage: toUsage(response.result.usage),
        providerMetadata: toProviderMetadata(response),
        response: { modelId: response.model, timestamp: new Date() },
        warnings: call.warnings,
      };
    } catch (error) {
      throw toAISDKError(error, this.callTarget, options.abortSignal);
    }
  }

  /**
   * The stream is returned once the tool produced its first event, so a failure before any output
   * (not logged in, unavailable, every tool of a chain failed) rejects `doStream` itself, where
   * the AI SDK's retries apply. A later failure ends the stream with an `error` part. Cancelling
   * the stream (or aborting the signal) kills the tool's process.
   */
  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const tb = this.instance();
    const call = prepareCall(tb, this.target, options);
    const t = this.target;
    // Cancelling the stream must stop the tool at once, not when its next event arrives.
    const cancelled = new AbortController();
    const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, cancelled.signal]) : cancelled.signal;
    const events: AsyncIterable<ToolbridgeEvent> =
      t.kind === 'tool'
        ? tb.streamWith(t.toolId, call.request, this.options(call, signal))
        : tb.streamChat(call.request, this.options(call, signal));
    const iterator = events[Symbol.asyncIterator]();
    let first: IteratorResult<ToolbridgeEvent>;
    try {
      first = await iterator.next();
    } catch (error) {
      throw toAISDKError(error, this.callTarget, options.abortSignal);
    }

    const parts = new StreamPartsBuilder(shortId());
    const raw = options.includeRawChunks === true;
    let pending: IteratorResult<ToolbridgeEvent> | undefined = first;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start: (controller) => controller.enqueue({ type: 'stream-start', warnings: call.warnings }),
      pull: async (controller) => {
        try {
          const next = pending ?? (await iterator.next());
          pending = undefined;
          if (next.done) return controller.close();
          if (raw) controller.enqueue({ type: 'raw', rawValue: next.value });
          for (const part of parts.push(next.value)) controller.enqueue(part);
        } catch (error) {
          if (cancelled.signal.aborted) return;
          if (options.abortSignal?.aborted) return controller.error(options.abortSignal.reason);
          controller.enqueue({ type: 'error', error: toAISDKError(error, this.callTarget) });
          controller.close();
        }
      },
      cancel: async () => {
        cancelled.abort(new AbortedError('The stream was cancelled'));
        await iterator.return?.().catch(() => undefined);
      },
    });
    return { stream };
  }
}

function shortId(): string {
  return randomUUID().slice(0, 8);
}
