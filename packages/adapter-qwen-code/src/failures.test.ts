import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { classifyFailure, type LineProcessExit } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError } from '@toolbridge/core';
import { QwenStreamParser } from './events.js';
import { QWEN_FAILURES, qwenFailure } from './failures.js';

/** The `result` line the real qwen 0.24.4 printed after the mock answered every attempt with this status (see testing/captures). */
const captured = (status: number) => readFileSync(new URL(`./testing/captures/qwen-err-${status}.out`, import.meta.url), 'utf8');
const exit = { exitCode: 1, signal: null, stderrTail: '' };
const classify = (message: string, proc: LineProcessExit) => classifyFailure(qwenFailure(message, proc), QWEN_FAILURES);

function failureOf(lines: string): unknown {
  const parser = new QwenStreamParser();
  for (const line of lines.split('\n')) parser.push(line);
  try {
    parser.finish(exit);
  } catch (e) {
    return e;
  }
  throw new Error('the turn did not fail');
}

describe('failures of the real qwen, classified', () => {
  it('401 → ToolAuthError with the provider’s message', () => {
    const e = failureOf(captured(401));
    expect(e).toBeInstanceOf(ToolAuthError);
    expect((e as Error).message).toContain('Incorrect API key provided');
  });

  it('429 (after Qwen Code’s own retries) → RateLimitError', () => {
    const e = failureOf(captured(429));
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).not.toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'rate_limited', toolId: 'qwen-code' });
  });

  it('5xx → a retryable ProviderExecutionError', () => {
    const e = failureOf(captured(500));
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e).toMatchObject({ retryable: true });
  });

  it('a 429 naming its reset → that reset; a quota → QuotaExceededError', () => {
    const now = Date.now();
    const limited = classify('[API Error: 429 Rate limit reached. Please try again in 20s.]', exit);
    expect(limited).toBeInstanceOf(RateLimitError);
    const reset = (limited as RateLimitError).resetsAt!.getTime();
    expect(reset).toBeGreaterThanOrEqual(now + 20_000);
    expect(reset).toBeLessThan(now + 25_000);
    const quota = classify('[API Error: 429 Quota exceeded; it will reset at 2030-01-02T03:04:05Z]', exit);
    expect(quota).toBeInstanceOf(QuotaExceededError);
    expect((quota as QuotaExceededError).resetsAt).toEqual(new Date('2030-01-02T03:04:05Z'));
  });

  it('a session this directory does not have → native_session_missing', () => {
    const e = classify('', {
      exitCode: 1,
      signal: null,
      stderrTail: 'No saved session found with ID 11111111-2222-4333-8444-555555555555. Run `qwen --resume`',
    });
    expect(e).toMatchObject({ publicDetails: { reason: 'native_session_missing' } });
  });
});

describe('a sign-in without its key', () => {
  it('→ ToolAuthError naming what is missing (qwen 0.24.4 answers at once, without a model call)', () => {
    const e = classify(
      "Missing API key for OpenAI-compatible auth. Set settings.security.auth.apiKey, or set the 'OPENAI_API_KEY' environment variable.",
      exit,
    );
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e.message).toContain('Missing API key');
  });
});
