import { describe, expect, it } from '@jest/globals';
import {
  AbortedError,
  FallbackExhaustedError,
  InvalidRequestError,
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  ToolNotFoundError,
  ToolUnavailableError,
  ToolbridgeError,
} from './errors.js';
import { attemptReasonOf, toErrorEnvelope } from './envelope.js';

describe('errors', () => {
  it.each([
    [new InvalidRequestError('bad'), 'invalid_request', 400],
    [new ToolAuthError('login', { toolId: 'codex' }), 'tool_auth_required', 401],
    [new ToolNotFoundError('nope'), 'tool_not_found', 404],
    [new ProviderExecutionError('x'), 'provider_execution_failed', 502],
    [new ToolUnavailableError('x'), 'tool_unavailable', 503],
    [new TimeoutError('x'), 'timeout', 504],
    [new RateLimitError('x'), 'rate_limited', 429],
    [new QuotaExceededError('x'), 'quota_exceeded', 429],
  ])('%s maps to its code and status', (error, code, status) => {
    expect(error.code).toBe(code);
    expect(error.httpStatus).toBe(status);
    const { status: s, body } = toErrorEnvelope(error);
    expect(s).toBe(status);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toBe(error.message);
  });

  it('names the unknown tool id and the known ones', () => {
    const e = new ToolNotFoundError('gpt', { known: ['codex', 'ollama'] });
    expect(e.message).toBe('Tool "gpt" is not supported (known tools: codex, ollama)');
    expect(e.toolId).toBe('gpt');
  });

  it('never leaks an unexpected error message or stack', () => {
    const { status, body } = toErrorEnvelope(new Error('secret at /home/me/.codex/auth.json'));
    expect(status).toBe(500);
    expect(body).toEqual({ error: { code: 'internal_error', message: 'Unexpected internal error' } });
    expect(toErrorEnvelope('a string').status).toBe(500);
  });

  it('marks retryable kinds', () => {
    expect(new TimeoutError('x').retryable).toBe(true);
    expect(new RateLimitError('x').retryable).toBe(true);
    expect(new ToolAuthError('x').retryable).toBe(false);
    expect(new InvalidRequestError('x').retryable).toBe(false);
  });

  it('recognises instances across duplicated installs by brand', () => {
    // An error built by another copy of the package carries the same Symbol.for markers.
    const foreign = Object.assign(Object.create(Error.prototype), { code: 'tool_auth_required' });
    Object.defineProperty(foreign, Symbol.for('toolbridge.error'), { value: true });
    Object.defineProperty(foreign, Symbol.for('toolbridge.error.ToolAuthError'), { value: true });
    expect(ToolAuthError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof ToolAuthError).toBe(true);
    expect(foreign instanceof ToolbridgeError).toBe(true);
    expect(foreign instanceof TimeoutError).toBe(false);
    expect(ToolbridgeError.isInstance(new Error('x'))).toBe(false);
  });

  it('keeps subclass relations', () => {
    const q = new QuotaExceededError('used up', { resetsAt: new Date(Date.now() + 60_000) });
    expect(q).toBeInstanceOf(RateLimitError);
    expect(RateLimitError.isInstance(q)).toBe(true);
    expect(QuotaExceededError.isInstance(new RateLimitError('x'))).toBe(false);
    expect(q.waitMs()).toBeGreaterThan(50_000);
    expect(attemptReasonOf(q)).toBe('quota_exceeded');
  });

  it('adds the reset time of a rate limit to the envelope', () => {
    const resetsAt = new Date('2030-01-01T00:00:00Z');
    const { body } = toErrorEnvelope(new RateLimitError('slow down', { resetsAt, toolId: 'codex' }));
    expect(body.error).toMatchObject({ code: 'rate_limited', resetsAt: '2030-01-01T00:00:00.000Z', toolId: 'codex', retryable: true });
    expect(body.error.retryAfterMs).toBeGreaterThan(0);
  });

  it('gives a fallback failure the code and status of the last failure, with the attempts', () => {
    const attempts = [
      { toolId: 'a', tryIndex: 0, stage: 'execution' as const, outcome: 'failed' as const, reason: 'timeout' as const, latencyMs: 5 },
    ];
    const e = new FallbackExhaustedError('all failed', attempts, new TimeoutError('t', { toolId: 'a' }));
    expect(e.httpStatus).toBe(504);
    const { status, body } = toErrorEnvelope(e);
    expect(status).toBe(504);
    expect(body.error.code).toBe('timeout');
    expect(body.error.attempts).toEqual(attempts);
  });

  it('maps a DOM AbortError to AbortedError', () => {
    const abort = new Error('aborted');
    abort.name = 'AbortError';
    expect(toErrorEnvelope(abort).body.error.code).toBe('aborted');
    expect(new AbortedError().httpStatus).toBe(499);
  });
});
