import { describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError } from '@toolbridge/core';
import { classifyFailure as classify } from '@toolbridge/adapter-kit';
import { CODEX_FAILURES, codexFacts, cleanStderr, parseRetryAt } from './failures.js';
import { capture, MESSAGES } from './testing/fake-codex.js';

describe('parseRetryAt', () => {
  it('reads a bare time as the next time the local clock shows it', () => {
    const now = new Date(2026, 10, 22, 4, 14);
    expect(parseRetryAt(MESSAGES.usageLimit, now)).toEqual(new Date(2026, 10, 22, 5, 19));
    // 5:19 AM has passed at 6 AM: it means tomorrow.
    expect(parseRetryAt(MESSAGES.usageLimit, new Date(2026, 10, 22, 6, 0))).toEqual(new Date(2026, 10, 23, 5, 19));
    expect(parseRetryAt('Try again at 12:05 PM.', now)).toEqual(new Date(2026, 10, 22, 12, 5));
    expect(parseRetryAt('Try again at 12:05 AM.', now)).toEqual(new Date(2026, 10, 23, 0, 5));
  });

  it('reads a dated reset time', () => {
    expect(parseRetryAt(MESSAGES.usageLimitDated)).toEqual(new Date(2026, 10, 25, 15, 35));
    expect(parseRetryAt('try again at Jan 2nd, 2027 9:00 AM')).toEqual(new Date(2027, 0, 2, 9, 0));
  });

  it('gives undefined when there is no time', () => {
    expect(parseRetryAt('You’ve hit your usage limit.')).toBeUndefined();
  });
});

const classifyFailure = (message: string, context?: Parameters<typeof codexFacts>[1]) =>
  classify(codexFacts(message, context), CODEX_FAILURES);

describe('the Codex failure table', () => {
  it('turns the usage-limit message into a retryable QuotaExceededError with its reset time', () => {
    const now = new Date(2026, 10, 22, 4, 14);
    const e = classifyFailure(MESSAGES.usageLimit, { now });
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ code: 'quota_exceeded', httpStatus: 429, retryable: true, toolId: 'codex' });
    expect((e as QuotaExceededError).resetsAt).toEqual(new Date(2026, 10, 22, 5, 19));
    expect((e as QuotaExceededError).waitMs(now.getTime())).toBe(65 * 60_000);
  });

  it('turns a plain 429 into a RateLimitError without a reset time', () => {
    const e = classifyFailure(MESSAGES.tooManyRequests);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).not.toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'rate_limited', retryable: true, toolId: 'codex' });
  });

  it('turns 401 and missing credentials into ToolAuthError', () => {
    for (const m of [MESSAGES.unauthorized, 'Missing environment variable: `OPENAI_API_KEY`.', 'Not logged in']) {
      const e = classifyFailure(m);
      expect(e).toBeInstanceOf(ToolAuthError);
      expect(e).toMatchObject({ code: 'tool_auth_required', httpStatus: 401, toolId: 'codex' });
    }
  });

  it('keeps other failures as ProviderExecutionError with the cleaned stderr tail', () => {
    const e = classifyFailure('boom', { stderrTail: capture('codex-mock.err') + 'thread panicked at core.rs\n', exitCode: 101 });
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e.message).toContain('boom');
    expect(e.message).toContain('thread panicked at core.rs');
    expect(e.message).not.toContain('WARNING: proceeding');
    expect(e).toMatchObject({ toolId: 'codex', retryable: false, details: { exitCode: 101 } });
    expect(classifyFailure('We’re currently experiencing high demand, which may cause temporary errors.').retryable).toBe(true);
  });
});

describe('cleanStderr', () => {
  it('drops the lines every run prints', () => {
    expect(cleanStderr(capture('codex-mock.err'))).toBe('');
    expect(cleanStderr(capture('codex-login-status.err'))).toBe('Not logged in');
  });
});
