import { afterEach, describe, expect, it } from '@jest/globals';
import {
  AbortedError,
  FallbackExhaustedError,
  InvalidRequestError,
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  toErrorEnvelope,
  ToolAuthError,
  ToolNotFoundError,
  ToolUnavailableError,
  type Attempt,
} from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { createOrchestrator, MAX_RETRIES, type OrchestratorOptions } from './orchestrator.js';
import { scriptedAdapter, type ScriptedAdapter } from '@toolbridge/test-suite/kit';

const hello = { messages: [{ role: 'user' as const, content: 'hi' }] };
const registries: ToolRegistry[] = [];
afterEach(async () => {
  for (const r of registries.splice(0)) await r.close();
});

/** Fast backoff so retry tests take milliseconds; tests that check the delay set their own. */
function setup(tools: ScriptedAdapter[], options: OrchestratorOptions = {}) {
  const registry = createRegistry({ adapters: tools, env: {} });
  registries.push(registry);
  return { registry, orchestrator: createOrchestrator(registry, { backoffBaseMs: 5, backoffMaxMs: 20, ...options }) };
}

const pick = (attempts: Attempt[]) => attempts.map((a) => [a.toolId, a.tryIndex, a.stage, a.outcome, a.reason]);

describe('fallback chat: order and response', () => {
  it('answers from the first tool when it works, without touching the others', async () => {
    const a = scriptedAdapter('a');
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'] });
    expect(response).toMatchObject({
      toolId: 'a',
      type: 'agent',
      model: 'a-default',
      result: { message: { role: 'assistant', content: 'hello from a' }, usage: { input_tokens: 3, output_tokens: 3 } },
      fallbackUsed: false,
    });
    expect(typeof response.latencyMs).toBe('number');
    expect(pick(response.attempts)).toEqual([['a', 0, 'execution', 'succeeded', undefined]]);
    expect(response.attempts[0]!.message).toEqual(expect.any(String));
    expect(b.calls).toHaveLength(0);
  });

  it('tries tools in the order given and reports fallbackUsed', async () => {
    const a = scriptedAdapter('a');
    const b = scriptedAdapter('b', { script: [{ error: new ToolUnavailableError('b is down', { toolId: 'b' }) }] });
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['b', 'a'], retries: 3 });
    expect(response.toolId).toBe('a');
    expect(response.fallbackUsed).toBe(true);
    // An unavailable tool is not retried: straight to the next one.
    expect(pick(response.attempts)).toEqual([
      ['b', 0, 'execution', 'failed', 'unavailable'],
      ['a', 0, 'execution', 'succeeded', undefined],
    ]);
    expect(response.attempts[0]!.message).toBe('b is down');
    expect(b.calls).toHaveLength(1);
  });

  it('collapses duplicate providers, keeping the first occurrence', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ProviderExecutionError('boom', { toolId: 'a' }) }] });
    const b = scriptedAdapter('b', { script: [{ error: new ProviderExecutionError('boom', { toolId: 'b' }) }] });
    const c = scriptedAdapter('c');
    const { orchestrator } = setup([a, b, c]);
    const response = await orchestrator.chat(hello, { providers: ['b', 'a', 'b', 'a', 'c', 'b'] });
    expect(response.attempts.map((x) => x.toolId)).toEqual(['b', 'a', 'c']);
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(1);
    expect(response.fallbackUsed).toBe(true);
  });

  it('moves on at once after an auth error', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ToolAuthError('log in first', { toolId: 'a' }) }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 2 });
    expect(pick(response.attempts)).toEqual([
      ['a', 0, 'execution', 'failed', 'unauthenticated'],
      ['b', 0, 'execution', 'succeeded', undefined],
    ]);
    expect(a.calls).toHaveLength(1);
  });

  it('moves on at once from a busy tool (its queue is full), without retrying it', async () => {
    const a = scriptedAdapter('a', { script: [{ hang: true }] });
    const b = scriptedAdapter('b');
    const registry = createRegistry({ adapters: [a, b], env: {}, concurrency: { maxConcurrent: 1, maxQueued: 0 } });
    registries.push(registry);
    const orchestrator = createOrchestrator(registry, { backoffBaseMs: 5, backoffMaxMs: 20 });
    const controller = new AbortController();
    const occupying = registry.chat('a', hello, { signal: controller.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 10));
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 2 });
    expect(pick(response.attempts)).toEqual([
      ['a', 0, 'execution', 'failed', 'busy'],
      ['b', 0, 'execution', 'succeeded', undefined],
    ]);
    expect(response.attempts[0]!.message).toMatch(/^Tool a is busy/);
    expect(a.calls).toHaveLength(1); // only the chat holding the slot
    controller.abort();
    await occupying;
  });

  it('reports each recorded attempt to onAttempt, in order', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ProviderExecutionError('x', { toolId: 'a' }) }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const seen: Attempt[] = [];
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], onAttempt: (x) => seen.push(x) });
    expect(seen).toEqual(response.attempts);
    expect(seen.map((x) => x.toolId)).toEqual(['a', 'b']);
  });
});

describe('fallback chat: retries and backoff', () => {
  it('retries a retryable failure exactly `retries` times on the same tool, then falls back', async () => {
    const transient = new ProviderExecutionError('overloaded', { toolId: 'a', retryable: true });
    const a = scriptedAdapter('a', { script: [{ error: transient }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 2 });
    expect(a.calls).toHaveLength(3);
    expect(pick(response.attempts)).toEqual([
      ['a', 0, 'execution', 'failed', 'provider_execution_failed'],
      ['a', 1, 'execution', 'failed', 'provider_execution_failed'],
      ['a', 2, 'execution', 'failed', 'provider_execution_failed'],
      ['b', 0, 'execution', 'succeeded', undefined],
    ]);
  });

  it('does not retry by default, nor a failure that is not retryable', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ProviderExecutionError('x', { toolId: 'a', retryable: true }) }] });
    const b = scriptedAdapter('b', { script: [{ error: new ProviderExecutionError('bad output', { toolId: 'b' }) }] });
    const c = scriptedAdapter('c');
    const { orchestrator } = setup([a, b, c]);
    await orchestrator.chat(hello, { providers: ['a', 'c'] });
    expect(a.calls).toHaveLength(1);
    await orchestrator.chat(hello, { providers: ['b', 'c'], retries: 3 });
    expect(b.calls).toHaveLength(1);
  });

  it('succeeds on a retry and reports the try index', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new TimeoutError('slow', { toolId: 'a' }) }, { answer: 'second time' }] });
    const { orchestrator } = setup([a]);
    const response = await orchestrator.chat(hello, { providers: ['a'], retries: 1 });
    expect(response.result.message.content).toBe('second time');
    expect(response.fallbackUsed).toBe(false);
    expect(pick(response.attempts)).toEqual([
      ['a', 0, 'execution', 'failed', 'timeout'],
      ['a', 1, 'execution', 'succeeded', undefined],
    ]);
  });

  it('backs off exponentially between tries', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ProviderExecutionError('x', { toolId: 'a', retryable: true }) }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b], { backoffBaseMs: 60, backoffMaxMs: 1000 });
    await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 2 });
    const gap1 = a.calls[1]!.startedAt - a.calls[0]!.endedAt!;
    const gap2 = a.calls[2]!.startedAt - a.calls[1]!.endedAt!;
    expect(gap1).toBeGreaterThanOrEqual(55);
    expect(gap2).toBeGreaterThanOrEqual(115);
  });

  it('waits for a rate limit reset that fits the deadline, then retries the same tool', async () => {
    const limited = new RateLimitError('slow down', { toolId: 'a', retryAfterMs: 300 });
    const a = scriptedAdapter('a', { script: [{ error: limited }, { answer: 'after the wait' }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 1, timeoutMs: 5000 });
    expect(response.toolId).toBe('a');
    expect(response.result.message.content).toBe('after the wait');
    expect(a.calls[1]!.startedAt - a.calls[0]!.endedAt!).toBeGreaterThanOrEqual(290);
    expect(pick(response.attempts)).toEqual([
      ['a', 0, 'execution', 'failed', 'rate_limited'],
      ['a', 1, 'execution', 'succeeded', undefined],
    ]);
    expect(b.calls).toHaveLength(0);
  });

  it('does not wait for a reset beyond the deadline: moves on to the next tool', async () => {
    const limited = new RateLimitError('slow down', { toolId: 'a', resetsAt: new Date(Date.now() + 10_000) });
    const a = scriptedAdapter('a', { script: [{ error: limited }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 3, timeoutMs: 2000 });
    expect(response.toolId).toBe('b');
    expect(a.calls).toHaveLength(1);
    // b ran right after a, not after a's reset time.
    expect(b.calls[0]!.startedAt - a.calls[0]!.endedAt!).toBeLessThan(1000);
  });

  it('does not wait longer than maxRateLimitWaitMs when there is no deadline', async () => {
    const limited = new QuotaExceededError('plan used up', { toolId: 'a', retryAfterMs: 5000 });
    const a = scriptedAdapter('a', { script: [{ error: limited }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b], { maxRateLimitWaitMs: 1000 });
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 2 });
    expect(response.toolId).toBe('b');
    expect(a.calls).toHaveLength(1);
    expect(response.attempts[0]!.reason).toBe('quota_exceeded');
  });

  it('bounds each attempt with perAttemptTimeoutMs, a retryable timeout', async () => {
    const a = scriptedAdapter('a', { script: [{ hang: true }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 1, perAttemptTimeoutMs: 150 });
    expect(pick(response.attempts)).toEqual([
      ['a', 0, 'execution', 'failed', 'timeout'],
      ['a', 1, 'execution', 'failed', 'timeout'],
      ['b', 0, 'execution', 'succeeded', undefined],
    ]);
    for (const call of a.calls) {
      expect(call.ctx.signal.aborted).toBe(true);
      expect(call.ctx.signal.reason).toBeInstanceOf(TimeoutError);
      expect(call.ctx.timeoutMs).toBe(150);
    }
  });
});

describe('fallback chat: preflight skips', () => {
  it('refuses an unknown tool id (a typo is the caller’s mistake) before running anything', async () => {
    const a = scriptedAdapter('a');
    const { orchestrator } = setup([a]);
    const error = await orchestrator.chat(hello, { providers: ['ghost', 'a'] }).catch((e) => e);
    expect(error).toBeInstanceOf(ToolNotFoundError);
    expect(error).toMatchObject({ code: 'tool_not_found', httpStatus: 404 });
    expect(error.message).toContain('ghost');
    expect(a.calls).toHaveLength(0);
  });

  it('skips a tool that is not installed without running it', async () => {
    const a = scriptedAdapter('a', { available: false });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'] });
    expect(pick(response.attempts)[0]).toEqual(['a', 0, 'preflight', 'skipped', 'unavailable']);
    expect(response.attempts[0]!.message).toBe('a is not installed');
    expect(a.calls).toHaveLength(0);
  });

  it('skips a tool known to be logged out, without starting anything', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ToolAuthError('Not logged in', { toolId: 'a' }) }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    await orchestrator.chat(hello, { providers: ['a', 'b'] });
    expect(a.calls).toHaveLength(1);
    const second = await orchestrator.chat(hello, { providers: ['a', 'b'] });
    expect(pick(second.attempts)).toEqual([
      ['a', 0, 'preflight', 'skipped', 'unauthenticated'],
      ['b', 0, 'execution', 'succeeded', undefined],
    ]);
    expect(a.calls).toHaveLength(1);
  });

  it('skips a tool that a health check found logged out', async () => {
    const a = scriptedAdapter('a', { login: { authenticated: false, detail: 'Not logged in' } });
    const b = scriptedAdapter('b');
    const { registry, orchestrator } = setup([a, b]);
    await registry.health('a');
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'] });
    expect(response.attempts[0]).toMatchObject({ toolId: 'a', stage: 'preflight', outcome: 'skipped', reason: 'unauthenticated' });
    expect(a.calls).toHaveLength(0);
  });

  it('re-checks an old logged-out observation: a user who logged in since is tried again', async () => {
    const a = scriptedAdapter('a', { login: { authenticated: false } });
    const { registry, orchestrator } = setup([a], { authTrustMs: 50 });
    await registry.health('a');
    const checksBefore = a.counts.checkAuth;
    await new Promise((r) => setTimeout(r, 80));
    a.setAuth({ authenticated: true, method: 'api_key' });
    const response = await orchestrator.chat(hello, { providers: ['a'] });
    expect(a.counts.checkAuth).toBe(checksBefore + 1);
    expect(pick(response.attempts)).toEqual([['a', 0, 'execution', 'succeeded', undefined]]);
  });

  it('re-checks an old logged-out observation and still skips when the tool is still logged out', async () => {
    const a = scriptedAdapter('a', { login: { authenticated: false } });
    const b = scriptedAdapter('b');
    const { registry, orchestrator } = setup([a, b], { authTrustMs: 50 });
    await registry.health('a');
    await new Promise((r) => setTimeout(r, 80));
    const checksBefore = a.counts.checkAuth;
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'] });
    expect(a.counts.checkAuth).toBe(checksBefore + 1);
    expect(response.attempts[0]).toMatchObject({ toolId: 'a', outcome: 'skipped', reason: 'unauthenticated' });
    expect(a.calls).toHaveLength(0);
  });

  it('skips a tool whose usage window is used up until a future reset', async () => {
    const resetsAt = new Date(Date.now() + 3_600_000).toISOString();
    const a = scriptedAdapter('a', {
      login: { authenticated: true },
      usageLimits: {
        status: 'available',
        source: 'local_session',
        windows: {
          five_hour: { usedPercentage: 100, remainingPercentage: 0, resetsAt },
          seven_day: { usedPercentage: 40, remainingPercentage: 60, resetsAt },
        },
      },
    });
    const b = scriptedAdapter('b');
    const { registry, orchestrator } = setup([a, b]);
    await registry.health('a');
    const response = await orchestrator.chat(hello, { providers: ['a', 'b'] });
    expect(response.attempts[0]).toMatchObject({ toolId: 'a', stage: 'preflight', outcome: 'skipped', reason: 'quota_exceeded' });
    expect(response.attempts[0]!.message).toContain('five_hour');
    expect(a.calls).toHaveLength(0);
  });

  it('tries a tool whose full window runs on into billed overage (a paid Copilot plan)', async () => {
    const resetsAt = new Date(Date.now() + 3_600_000).toISOString();
    const a = scriptedAdapter('a', {
      login: { authenticated: true },
      usageLimits: {
        status: 'available',
        windows: { premium_requests: { usedPercentage: 100, remainingPercentage: 0, resetsAt, overagePermitted: true } },
      },
    });
    const { registry, orchestrator } = setup([a]);
    await registry.health('a');
    const response = await orchestrator.chat(hello, { providers: ['a'] });
    expect(response.toolId).toBe('a');
    expect(response.attempts.map((t) => t.outcome)).toEqual(['succeeded']);
  });

  it('tries a tool whose full window has already reset', async () => {
    const a = scriptedAdapter('a', {
      usageLimits: {
        status: 'available',
        windows: { five_hour: { usedPercentage: 100, remainingPercentage: 0, resetsAt: new Date(Date.now() - 1000).toISOString() } },
      },
    });
    const { registry, orchestrator } = setup([a]);
    await registry.health('a');
    const response = await orchestrator.chat(hello, { providers: ['a'] });
    expect(response.toolId).toBe('a');
  });

  it('cools a rate-limited tool down until its reset for later requests', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new RateLimitError('429', { toolId: 'a', retryAfterMs: 60_000 }) }] });
    const q = scriptedAdapter('q', { script: [{ error: new QuotaExceededError('plan used up', { toolId: 'q', retryAfterMs: 60_000 }) }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, q, b]);
    const first = await orchestrator.chat(hello, { providers: ['a', 'q', 'b'] });
    expect(pick(first.attempts)).toEqual([
      ['a', 0, 'execution', 'failed', 'rate_limited'],
      ['q', 0, 'execution', 'failed', 'quota_exceeded'],
      ['b', 0, 'execution', 'succeeded', undefined],
    ]);
    const second = await orchestrator.chat(hello, { providers: ['a', 'q', 'b'] });
    expect(pick(second.attempts)).toEqual([
      ['a', 0, 'preflight', 'skipped', 'rate_limited'],
      ['q', 0, 'preflight', 'skipped', 'quota_exceeded'],
      ['b', 0, 'execution', 'succeeded', undefined],
    ]);
    expect(a.calls).toHaveLength(1);
    expect(q.calls).toHaveLength(1);
  });
});

describe('fallback chat: cancellation and deadlines', () => {
  it('stops when the caller aborts mid-attempt: the attempt is cancelled and nothing else starts', async () => {
    const a = scriptedAdapter('a', { script: [{ hang: true }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const controller = new AbortController();
    const seen: Attempt[] = [];
    setTimeout(() => controller.abort(), 100);
    const error = await orchestrator
      .chat(hello, { providers: ['a', 'b'], retries: 3, signal: controller.signal, onAttempt: (x) => seen.push(x) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(a.calls).toHaveLength(1);
    expect(a.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(a.calls[0]!.ctx.signal.reason).toBeInstanceOf(AbortedError);
    expect(pick(seen)).toEqual([['a', 0, 'execution', 'failed', 'aborted']]);
    await new Promise((r) => setTimeout(r, 100));
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(0);
  });

  it('stops during a backoff wait when the caller aborts', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new RateLimitError('429', { toolId: 'a', retryAfterMs: 2000 }) }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 1, signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(0);
  });

  it('does nothing when the signal is already aborted', async () => {
    const a = scriptedAdapter('a');
    const { orchestrator } = setup([a]);
    const error = await orchestrator.chat(hello, { providers: ['a'], signal: AbortSignal.abort() }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(a.calls).toHaveLength(0);
  });

  it('ends at the overall deadline: the running attempt is killed, the error is a 504 with the attempts', async () => {
    const a = scriptedAdapter('a', { script: [{ hang: true }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const error = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 2, timeoutMs: 250 }).catch((e) => e);
    expect(error).toBeInstanceOf(FallbackExhaustedError);
    expect(error).toMatchObject({ code: 'timeout', httpStatus: 504 });
    expect((error as FallbackExhaustedError).lastError).toBeInstanceOf(TimeoutError);
    expect(pick((error as FallbackExhaustedError).attempts)).toEqual([['a', 0, 'execution', 'failed', 'timeout']]);
    expect(a.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(a.calls[0]!.ctx.timeoutMs).toBeLessThanOrEqual(250);
    await new Promise((r) => setTimeout(r, 100));
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(0);
  });

  it('bounds an attempt by what is left of the deadline', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ProviderExecutionError('x', { toolId: 'a' }), delayMs: 150 }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    await orchestrator.chat(hello, { providers: ['a', 'b'], perAttemptTimeoutMs: 10_000, timeoutMs: 1000 });
    expect(a.calls[0]!.ctx.timeoutMs).toBeLessThanOrEqual(1000);
    expect(b.calls[0]!.ctx.timeoutMs).toBeLessThanOrEqual(1000 - 140);
  });
});

describe('fallback chat: exhausted and invalid input', () => {
  it('throws FallbackExhaustedError whose code and status follow the last failure', async () => {
    const auth = scriptedAdapter('auth', { script: [{ error: new ToolAuthError('Not logged in', { toolId: 'auth' }) }] });
    const broken = scriptedAdapter('broken', { script: [{ error: new ProviderExecutionError('crashed', { toolId: 'broken' }) }] });
    const { orchestrator } = setup([auth, broken]);
    const e1 = await orchestrator.chat(hello, { providers: ['auth', 'broken'] }).catch((e) => e);
    expect(e1).toBeInstanceOf(FallbackExhaustedError);
    expect(e1).toMatchObject({ code: 'provider_execution_failed', httpStatus: 502, toolId: 'broken' });
    expect((e1 as FallbackExhaustedError).lastError).toBeInstanceOf(ProviderExecutionError);
    expect(pick((e1 as FallbackExhaustedError).attempts)).toEqual([
      ['auth', 0, 'execution', 'failed', 'unauthenticated'],
      ['broken', 0, 'execution', 'failed', 'provider_execution_failed'],
    ]);
    expect((e1 as Error).message).toMatch(/auth failed \(unauthenticated\); broken failed \(provider_execution_failed\)/);
    const envelope = toErrorEnvelope(e1);
    expect(envelope.status).toBe(502);
    expect(envelope.body.error.attempts).toHaveLength(2);

    // The other way round, the last failure is the (now known) logged-out tool: 401.
    const e2 = await orchestrator.chat(hello, { providers: ['broken', 'auth'] }).catch((e) => e);
    expect(e2).toMatchObject({ code: 'tool_auth_required', httpStatus: 401 });
    expect((e2 as FallbackExhaustedError).attempts.at(-1)).toMatchObject({ toolId: 'auth', outcome: 'skipped', reason: 'unauthenticated' });
  });

  it('reports an unknown-only provider list as tool_not_found', async () => {
    const { orchestrator } = setup([scriptedAdapter('a')]);
    const error = await orchestrator.chat(hello, { providers: ['ghost'] }).catch((e) => e);
    expect(error).toBeInstanceOf(ToolNotFoundError);
    expect(error).toMatchObject({ code: 'tool_not_found', httpStatus: 404 });
  });

  it.each([
    ['no providers', { providers: [] }],
    ['providers not an array', { providers: 'a' }],
    ['a provider that is not a string', { providers: ['a', 3] }],
    ['negative retries', { providers: ['a'], retries: -1 }],
    ['too many retries', { providers: ['a'], retries: MAX_RETRIES + 1 }],
    ['fractional retries', { providers: ['a'], retries: 1.5 }],
    ['zero perAttemptTimeoutMs', { providers: ['a'], perAttemptTimeoutMs: 0 }],
    ['fractional timeoutMs', { providers: ['a'], timeoutMs: 1.5 }],
    ['string timeoutMs', { providers: ['a'], timeoutMs: '100' }],
  ])('rejects %s with InvalidRequestError before any attempt', async (_name, options) => {
    const a = scriptedAdapter('a');
    const { orchestrator } = setup([a]);
    await expect(orchestrator.chat(hello, options as never)).rejects.toBeInstanceOf(InvalidRequestError);
    expect(a.calls).toHaveLength(0);
  });

  it('rejects an invalid chat request before any attempt', async () => {
    const a = scriptedAdapter('a');
    const { orchestrator } = setup([a]);
    await expect(orchestrator.chat({ messages: [] }, { providers: ['a'] })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(orchestrator.chat({ messages: [{ role: 'robot', content: 'x' }] } as never, { providers: ['a'] })).rejects.toMatchObject({
      code: 'invalid_request',
      httpStatus: 400,
    });
    expect(a.calls).toHaveLength(0);
  });

  it('stops everything when a tool rejects the input as invalid', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new InvalidRequestError('model "x" does not exist', { toolId: 'a' }) }] });
    const b = scriptedAdapter('b');
    const { orchestrator } = setup([a, b]);
    const error = await orchestrator.chat(hello, { providers: ['a', 'b'], retries: 2 }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe('model "x" does not exist');
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(0);
  });
});

describe('fallback chat: what only some tools can do', () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

  it('skips a tool that cannot take images (reason unsupported) and asks one that can', async () => {
    const blind = scriptedAdapter('blind');
    const eye = scriptedAdapter('eye', { features: { images: true }, detectedCapabilities: ['vision'] });
    const { orchestrator } = setup([blind, eye]);
    const response = await orchestrator.chat(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is it?' },
              { type: 'image', data: PNG, mediaType: 'image/png' },
            ],
          },
        ],
      },
      { providers: ['blind', 'eye'] },
    );
    expect(pick(response.attempts)).toEqual([
      ['blind', 0, 'preflight', 'skipped', 'unsupported'],
      ['eye', 0, 'execution', 'succeeded', undefined],
    ]);
    expect(blind.calls).toHaveLength(0);
  });

  it('moves on to the next tool when an answer does not match the schema (after its repair turn)', async () => {
    const sloppy = scriptedAdapter('sloppy', { script: [{ deltas: ['no json here'] }] });
    const exact = scriptedAdapter('exact', { script: [{ deltas: ['{"ok":true}'] }] });
    const { orchestrator } = setup([sloppy, exact]);
    const response = await orchestrator.chat(
      {
        messages: [{ role: 'user', content: 'status?' }],
        responseFormat: { type: 'json_schema', schema: { type: 'object', required: ['ok'] } },
      },
      { providers: ['sloppy', 'exact'], retries: 2 },
    );
    expect(response.result.object).toEqual({ ok: true });
    expect(pick(response.attempts)).toEqual([
      ['sloppy', 0, 'execution', 'failed', 'schema_mismatch'],
      ['exact', 0, 'execution', 'succeeded', undefined],
    ]);
    expect(sloppy.calls).toHaveLength(2); // the answer and its one repair turn; no retry of a mismatch
  });

  it('holds a session for the whole fallback chat and tries its own tool first', async () => {
    const a = scriptedAdapter('a');
    const b = scriptedAdapter('b');
    const { orchestrator, registry } = setup([a, b]);
    const first = await registry.chat('b', hello);
    const response = await orchestrator.chat({ ...hello, sessionId: first.sessionId }, { providers: ['a', 'b'] });
    expect(response.toolId).toBe('b');
    expect(response.fallbackUsed).toBe(false);
    expect(response.sessionId).toBe(first.sessionId);
    expect(a.calls).toHaveLength(0);
  });
});
