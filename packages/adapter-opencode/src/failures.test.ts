import { describe, expect, it } from '@jest/globals';
import { classifyFailure } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError } from '@toolbridge/core';
import { classifyError, errorInfoOf, OPENCODE_FAILURES } from './failures.js';
import { capture } from './testing/captures.js';

const eventOf = (name: string) => JSON.parse(capture(name)) as Record<string, unknown>;

describe('errorInfoOf', () => {
  it('reads name, message, status, retryability and lower-cased headers from the recorded 429', () => {
    const info = errorInfoOf(eventOf('oc-err.out'));
    expect(info).toMatchObject({ name: 'APIError', message: 'Rate limit reached', statusCode: 429, isRetryable: true });
    expect(info.responseHeaders?.['retry-after']).toBe('1');
  });

  it('tolerates an error without data', () => {
    expect(errorInfoOf({ type: 'error', error: { name: 'MessageAbortedError', message: 'aborted' } })).toEqual({
      name: 'MessageAbortedError',
      message: 'aborted',
    });
    expect(errorInfoOf({ type: 'error' })).toEqual({});
  });
});

describe('classifyError', () => {
  it('treats auth-named errors without a status as auth failures', () => {
    const e = classifyError({ name: 'ProviderAuthError', message: 'No API key for anthropic' });
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e.toolId).toBe('opencode');
  });

  it('falls back to message text only when there is no status code', () => {
    expect(classifyError({ name: 'APIError', message: 'Invalid API key provided' })).toBeInstanceOf(ToolAuthError);
    // A 400 mentioning a key is a bad request, not a login problem.
    expect(classifyError({ name: 'APIError', message: 'Invalid API key format in header', statusCode: 400 })).toBeInstanceOf(
      ProviderExecutionError,
    );
  });

  it('maps a retryable rate-limit message without a status to a RateLimitError', () => {
    const e = classifyError({ name: 'APIError', message: 'Rate limit exceeded, slow down', isRetryable: true });
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).retryAfterMs).toBeUndefined();
  });

  it('tells a used-up quota from a rate limit', () => {
    const e = classifyError({
      name: 'APIError',
      message: 'You exceeded your current quota',
      statusCode: 429,
      responseBody: '{"error":{"code":"insufficient_quota"}}',
    });
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'quota_exceeded', retryable: true });
  });

  it('marks server errors retryable and other errors not', () => {
    expect(classifyError({ name: 'APIError', message: 'overloaded', statusCode: 529 })).toMatchObject({
      code: 'provider_execution_failed',
      retryable: true,
    });
    expect(classifyError({ name: 'APIError', message: 'bad request', statusCode: 400, isRetryable: false })).toMatchObject({
      retryable: false,
    });
    expect(classifyError({})).toMatchObject({ code: 'provider_execution_failed', message: 'OpenCode failed (Error): no message' });
  });
});

describe('a session serve does not have', () => {
  it('is native_session_missing for a call on the session, and a plain failure for a provider’s 404', () => {
    const gone = classifyFailure({ text: 'Session not found: ses_gone', status: 404, sessionCall: true }, OPENCODE_FAILURES);
    expect(gone).toMatchObject({ retryable: false, publicDetails: { reason: 'native_session_missing' } });
    expect(gone.message).toContain('Start a new session');
    expect(gone.message).not.toContain('ses_gone');
    const provider = classifyError({ name: 'APIError', message: 'model not found', statusCode: 404 });
    expect(provider.publicDetails).toBeUndefined();
    expect(provider.message).toBe('OpenCode failed (APIError 404): model not found');
  });
});
