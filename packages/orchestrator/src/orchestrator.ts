import {
  AbortedError,
  ToolNotFoundError,
  type Attempt,
  type ChatRequest,
  type ChatResult,
  type FallbackChatResponse,
  type QueueEntry,
  type StreamEvent,
} from '@toolbridge/core';
import {
  noResultError,
  validateChatRequest,
  type ChatCallOptions,
  type SessionLease,
  type ToolRegistry,
  type ValidChatRequest,
} from '@toolbridge/core/runtime';
import { runFallback, type AttemptRunner, type EngineSettings } from './engine.js';
import { normalizeFallbackOptions, type FallbackOptions, type OrchestratorOptions } from './options.js';
import { QuotaQueue } from './quota-wait.js';

export { MAX_RETRIES, type FallbackOptions, type OrchestratorOptions } from './options.js';

/** Events of a streamed fallback chat. */
export type FallbackStreamEvent =
  { type: 'attempt'; attempt: Attempt } | Exclude<StreamEvent, { type: 'result' }> | { type: 'done'; response: FallbackChatResponse };

export interface Orchestrator {
  chat(request: ChatRequest | ValidChatRequest, options: FallbackOptions): Promise<FallbackChatResponse>;
  /**
   * Attempts, passed-through `delta`/`activity`/`approval` events, then `done`. Retry and
   * fallback happen only before the first delta; after it, a failure is thrown
   * (that tool's error), never a clean end. Stopping the iteration early
   * cancels the running attempt and kills its process.
   */
  stream(request: ChatRequest | ValidChatRequest, options: FallbackOptions): AsyncIterable<FallbackStreamEvent>;
  /** Fallback chats waiting for a usage window to reset (`waitForQuota`), with when they will run. */
  waiting(): QueueEntry[];
}

function settingsOf(options: OrchestratorOptions): EngineSettings {
  const ms = (value: number | undefined, fallback: number, name: string) => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`${name} must be a non-negative number of milliseconds`);
    return v;
  };
  return {
    backoffBaseMs: ms(options.backoffBaseMs, 250, 'backoffBaseMs'),
    backoffMaxMs: ms(options.backoffMaxMs, 4000, 'backoffMaxMs'),
    maxRateLimitWaitMs: ms(options.maxRateLimitWaitMs, 30_000, 'maxRateLimitWaitMs'),
    authTrustMs: ms(options.authTrustMs, 60_000, 'authTrustMs'),
    authRecheckTimeoutMs: ms(options.authRecheckTimeoutMs, 5000, 'authRecheckTimeoutMs'),
  };
}

export function createOrchestrator(registry: ToolRegistry, orchestratorOptions: OrchestratorOptions = {}): Orchestrator {
  const settings = settingsOf(orchestratorOptions);
  const quotaQueue = new QuotaQueue();

  /**
   * Everything checked before the first attempt: the options, the request, unknown tool ids (a
   * typo is the caller's mistake, refused with 404 like everywhere else), and the session, which
   * is held for the whole chat with its own tool tried first.
   */
  const prepare = async (request: ChatRequest | ValidChatRequest, options: FallbackOptions) => {
    const normalized = normalizeFallbackOptions(options);
    const valid = await validateChatRequest(request);
    for (const p of normalized.providers) if (!registry.has(p)) throw new ToolNotFoundError(p, { known: [...registry.toolIds] });
    let lease: SessionLease | undefined;
    if (valid.sessionId) {
      lease = await registry.sessions.lock(valid.sessionId);
      normalized.providers = [lease.toolId, ...normalized.providers.filter((p) => p !== lease!.toolId)];
      normalized.keepFirst = true;
    }
    return { normalized, valid, lease };
  };

  const chat = async (request: ChatRequest | ValidChatRequest, options: FallbackOptions): Promise<FallbackChatResponse> => {
    const { normalized, valid, lease } = await prepare(request, options);
    const runner: AttemptRunner = {
      committed: false,
      run: (id, req, o) => registry.chat(id, req, { ...o, sessionLease: lease, onApproval: normalized.onApproval }),
    };
    try {
      return await quotaQueue.run(normalized.providers, normalized.waitForQuota, normalized.signal, () =>
        runFallback(registry, settings, valid, normalized, runner),
      );
    } finally {
      lease?.release();
    }
  };

  async function* stream(request: ChatRequest | ValidChatRequest, options: FallbackOptions): AsyncGenerator<FallbackStreamEvent> {
    const { normalized, valid, lease } = await prepare(request, options);

    // A one-way channel from the fallback loop to this generator. `send` resolves once the
    // event is taken, so a slow consumer slows the tool's stream down instead of buffering it.
    const queue: Array<{ event: FallbackStreamEvent; taken: () => void }> = [];
    let wake: (() => void) | undefined;
    let consumerGone = false;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const send = (event: FallbackStreamEvent) =>
      new Promise<void>((taken) => {
        if (consumerGone) return taken();
        queue.push({ event, taken });
        notify();
      });

    const stopper = new AbortController();
    const signal = normalized.signal ? AbortSignal.any([normalized.signal, stopper.signal]) : stopper.signal;
    const runner = {
      committed: false,
      async run(toolId: string, req: ValidChatRequest, callOptions: ChatCallOptions): Promise<ChatResult> {
        let result: ChatResult | undefined;
        for await (const event of registry.stream(toolId, req, {
          ...callOptions,
          sessionLease: lease,
          onApproval: normalized.onApproval,
        })) {
          if (event.type === 'result') result = event.result;
          else if (event.type === 'delta') {
            if (event.text.length === 0) continue;
            runner.committed = true;
            await send(event);
          } else await send(event);
        }
        if (!result) throw noResultError(registry.adapter(toolId).name, toolId);
        return result;
      },
    };

    let outcome: { ok: true; response: FallbackChatResponse } | { ok: false; error: unknown } | undefined;
    const running = quotaQueue
      .run(normalized.providers, normalized.waitForQuota, signal, () =>
        runFallback(registry, settings, valid, { ...normalized, signal }, runner, (attempt) => {
          void send({ type: 'attempt', attempt });
        }),
      )
      .then(
        (response) => (outcome = { ok: true, response }),
        (error) => (outcome = { ok: false, error }),
      );
    void running.finally(notify);

    try {
      for (;;) {
        const next = queue.shift();
        if (next) {
          next.taken();
          yield next.event;
          continue;
        }
        if (outcome) {
          if (!outcome.ok) throw outcome.error;
          yield { type: 'done', response: outcome.response };
          return;
        }
        await new Promise<void>((r) => (wake = r));
      }
    } finally {
      if (!outcome) {
        // The consumer stopped early: cancel the attempt (its process is killed) and wait for the loop to wind down.
        consumerGone = true;
        for (const pending of queue.splice(0)) pending.taken();
        stopper.abort(new AbortedError('The stream was closed by its consumer'));
        await running;
      }
      lease?.release();
    }
  }

  return { chat, stream, waiting: () => quotaQueue.list() };
}
