import { describe, expect, it } from '@jest/globals';
import { failureFrom, failureText, isTokenFailure, parseRetryAfter, problemsOf } from './api-errors.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('failureFrom', () => {
  it("reads the bridge's envelope", () => {
    const body = JSON.stringify({ error: { code: 'invalid_request', message: 'config key "codexSandbox" must be one of "read-only"' } });
    expect(failureFrom(400, body, null, now)).toEqual({
      status: 400,
      code: 'invalid_request',
      message: 'config key "codexSandbox" must be one of "read-only"',
    });
  });

  it('takes Retry-After of a full queue (503) and shows it', () => {
    const body = JSON.stringify({ error: { code: 'tool_unavailable', message: 'codex is busy: its queue is full' } });
    const f = failureFrom(503, body, '5', now);
    expect(f).toMatchObject({ status: 503, code: 'tool_unavailable', retryAfterSeconds: 5 });
    expect(failureText(f)).toBe('tool_unavailable: codex is busy: its queue is full (try again in 5 s)');
  });

  it("falls back to the envelope's retryAfterMs and keeps its attempts", () => {
    const body = JSON.stringify({
      error: {
        code: 'rate_limited',
        message: 'slow down',
        retryAfterMs: 1500,
        attempts: [{ toolId: 'a', tryIndex: 0, stage: 'execution', outcome: 'failed' }],
      },
    });
    expect(failureFrom(429, body, null, now)).toMatchObject({ retryAfterSeconds: 2, attempts: [{ toolId: 'a' }] });
  });

  it('still gives a readable failure for a body that is not an envelope', () => {
    expect(failureFrom(502, '<html>Bad gateway</html>', null, now)).toEqual({
      status: 502,
      code: 'http_502',
      message: 'the bridge answered HTTP 502',
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('30', now)).toBe(30);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('garbage', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('isTokenFailure', () => {
  it("is the bridge's 401, not a tool's login 401", () => {
    expect(isTokenFailure({ status: 401, code: 'unauthorized' })).toBe(true);
    expect(isTokenFailure({ status: 401, code: 'tool_auth_required' })).toBe(false);
    expect(isTokenFailure({ status: 403, code: 'forbidden' })).toBe(false);
  });
});

describe('schema mismatch problems', () => {
  it('lists the validation errors of a 502 schema_mismatch under the message', () => {
    const body = JSON.stringify({
      error: {
        code: 'provider_execution_failed',
        message: 'codex did not answer with JSON matching the requested schema (after one repair turn): must be integer',
        details: { reason: 'schema_mismatch', errors: [{ path: '/age', message: 'must be integer' }, { path: '', message: 'x' }, 7] },
      },
    });
    expect(failureFrom(502, body, null, 0).problems).toEqual(['/age: must be integer', 'answer: x']);
    expect(problemsOf(undefined)).toEqual([]);
    expect(problemsOf({ errors: 'no' })).toEqual([]);
  });
});
