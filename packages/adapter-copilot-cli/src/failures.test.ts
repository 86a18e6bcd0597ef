import { describe, expect, it } from '@jest/globals';
import { classifyFailure } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError } from '@toolbridge/core';
import { CopilotEventParser, type CallFailure, type SessionError } from './events.js';
import { callFailureFacts, COPILOT_FAILURES, COPILOT_STARTUP_FAILURES, sessionErrorFacts, startupFacts, waitMsOf } from './failures.js';
import { capture } from './testing/fake-copilot.js';

const classifySessionError = (e: SessionError, context?: { now?: number }) =>
  classifyFailure(sessionErrorFacts(e, context), COPILOT_FAILURES);
const classifyCallFailure = (f: CallFailure) => classifyFailure(callFailureFacts(f), COPILOT_FAILURES);
const classifyStartupFailure = (stderr: string, exitCode: number | null) =>
  classifyFailure(startupFacts(stderr, exitCode), COPILOT_STARTUP_FAILURES);

function parsed(name: string): CopilotEventParser {
  const p = new CopilotEventParser();
  for (const line of capture(name).split('\n')) p.push(line);
  return p;
}

describe('Copilot failure classification', () => {
  it.each([
    ['copilot-err-401.out', ToolAuthError],
    ['copilot-login-6-chat-401.out', ToolAuthError],
    ['copilot-err-429.out', RateLimitError],
    ['copilot-login-8-chat-402-quota.out', QuotaExceededError],
    ['copilot-err-500.out', ProviderExecutionError],
  ] as const)('session.error of %s → %p', (name, type) => {
    const e = classifySessionError(parsed(name).error!);
    expect(e).toBeInstanceOf(type);
    expect(e.toolId).toBe('copilot');
  });

  it('a BYOK 429 keeps the wait the provider named; a 500 after retries is retryable', () => {
    expect(classifySessionError(parsed('copilot-err-429.out').error!)).toMatchObject({ retryAfterMs: 2000, retryable: true });
    const e = classifySessionError(parsed('copilot-err-500.out').error!);
    expect(e).not.toBeInstanceOf(RateLimitError);
    expect(e.retryable).toBe(true);
  });

  it('a weekly rate limit is a used-up quota with its reset time', () => {
    const now = Date.parse('2026-11-23T08:00:00Z');
    const e = classifySessionError(parsed('copilot-login-7-chat-429-weekly.out').error!, { now });
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect((e as QuotaExceededError).resetsAt).toEqual(new Date(now + 3_600_000));
  });

  it('the first failed call of a retried run, as the error the run would end with', () => {
    const failure = parsed('copilot-err-429.out').lastCallFailure!;
    const e = classifyCallFailure(failure);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e.message).toMatch(/429 Rate limit reached/);
    expect(e).toMatchObject({ retryAfterMs: 2000 });
    expect(classifyCallFailure(parsed('copilot-err-401.out').lastCallFailure!)).toBeInstanceOf(ToolAuthError);
    expect(classifyCallFailure(parsed('copilot-err-500.out').lastCallFailure!)).toMatchObject({
      code: 'provider_execution_failed',
      retryable: true,
    });
  });

  it('start-up failures on stderr', () => {
    expect(classifyStartupFailure(capture('copilot-noauth.err'), 1)).toBeInstanceOf(ToolAuthError);
    const network = classifyStartupFailure(capture('copilot-token-env.err'), 1);
    expect(network).toMatchObject({ code: 'provider_execution_failed', retryable: true });
    expect(classifyStartupFailure(capture('copilot-no-model.err'), 1).message).toMatch(/BYOK providers require an explicit model/);
    expect(classifyStartupFailure(capture('copilot-resume-unknown.err'), 1).message).toMatch(/No session, task, or name matched/);
  });

  it('reads waits in words and in short units', () => {
    expect(waitMsOf('Please wait for your limit to reset in 1 hour or switch')).toBe(3_600_000);
    expect(waitMsOf('Please try again in 20s.')).toBe(20_000);
    expect(waitMsOf('try again in 2 minutes')).toBe(120_000);
    expect(waitMsOf('no hint')).toBeUndefined();
  });
});
