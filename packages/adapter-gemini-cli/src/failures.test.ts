import { describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError } from '@toolbridge/core';
import { classifyFailure as classify } from '@toolbridge/adapter-kit';
import { GEMINI_FAILURES, geminiFacts, RetryWatch, suggestedRetryMs } from './failures.js';
import { capture } from './testing/fake-gemini.js';

const classifyFailure = (message: string, context?: Parameters<typeof geminiFacts>[1]) =>
  classify(geminiFacts(message, context), GEMINI_FAILURES);

const resultMessage = (name: string): string => {
  const line = capture(name)
    .split('\n')
    .find((l) => l.includes('"type":"result"'))!;
  return JSON.parse(line).error.message;
};

describe('Gemini failure classification', () => {
  it('401 from the API → ToolAuthError', () => {
    const e = classifyFailure(resultMessage('gemini-err-401.out'), { exitCode: 145 });
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e.message).toMatch(/API key not valid/);
  });

  it('no sign-in method (exit 41, stderr only) → ToolAuthError', () => {
    const e = classifyFailure(capture('gemini-noauth-stream.err'), { exitCode: 41 });
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e.message).toMatch(/Please set an Auth method/);
  });

  it('a daily quota → QuotaExceededError; a plain 429 → RateLimitError with the suggested wait', () => {
    expect(classifyFailure(resultMessage('gemini-err-429-daily.out'), { exitCode: 173 })).toBeInstanceOf(QuotaExceededError);
    const e = classifyFailure('[API Error: Resource has been exhausted (e.g. check quota).\nSuggested retry after 2s.]', { exitCode: 173 });
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).not.toBeInstanceOf(QuotaExceededError);
    expect((e as RateLimitError).retryAfterMs).toBe(2000);
  });

  it('the exit code stands in for an API error without a status', () => {
    expect(classifyFailure('[API Error: something]', { exitCode: 173 })).toBeInstanceOf(RateLimitError);
    expect(classifyFailure('[API Error: something]', { exitCode: 147 })).toBeInstanceOf(ToolAuthError);
    expect(classifyFailure('[API Error: something]', { exitCode: 244 })).toMatchObject({
      code: 'provider_execution_failed',
      retryable: true,
    });
  });

  it('network and empty answers are retryable execution failures; a turn limit is not', () => {
    expect(classifyFailure(resultMessage('gemini-err-drop-max1.out'), { exitCode: 1 })).toMatchObject({
      code: 'provider_execution_failed',
      retryable: true,
    });
    expect(
      classifyFailure(
        'The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.',
      ),
    ).toMatchObject({ retryable: true });
    const turns = classifyFailure(resultMessage('gemini-max-turns.out'), { exitCode: 53 });
    expect(turns).toBeInstanceOf(ProviderExecutionError);
    expect(turns.retryable).toBe(false);
  });

  it('keeps the cleaned stderr tail, without the notices every run prints', () => {
    const e = classifyFailure('', { exitCode: 42, stderrTail: capture('gemini-sessions-10-resume-unknown.err') });
    expect(e.message).toMatch(/Invalid session identifier/);
    expect(e.message).not.toMatch(/Basic terminal/);
  });

  it('reads suggested waits', () => {
    expect(suggestedRetryMs('Suggested retry after 38s.')).toBe(38_000);
    expect(suggestedRetryMs('Please retry in 1.5s')).toBe(1500);
    expect(suggestedRetryMs('Please retry in 250ms')).toBe(250);
    expect(suggestedRetryMs('nothing')).toBeUndefined();
  });
});

describe('RetryWatch', () => {
  const feed = (text: string, chunk = 37) => {
    const watch = new RetryWatch();
    const seen: string[] = [];
    for (let i = 0; i < text.length; i += chunk) {
      const hit = watch.push(text.slice(i, i + chunk));
      if (hit) seen.push(hit);
    }
    return seen;
  };

  it('catches the first failed attempt of a rate limit, with its suggested wait', () => {
    const seen = feed(capture('gemini-err-429-retryinfo.err'));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^Attempt 1 failed: Resource has been exhausted/);
    const e = classifyFailure(seen[0]!);
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).retryAfterMs).toBe(2000);
  });

  it('catches a retried server error with its status', () => {
    const [attempt] = feed(capture('gemini-err-500.err'));
    expect(attempt).toMatch(/^Attempt 1 failed with status 500/);
    expect(classifyFailure(attempt!)).toMatchObject({ code: 'provider_execution_failed', retryable: true });
  });

  it('stays quiet on stderr without a failed attempt', () => {
    expect(feed(capture('gemini-stdin-only.err'))).toEqual([]);
  });
});

describe("Google's retired personal sign-in", () => {
  // The stderr of `gemini` with `oauth-personal` since 2026-06-18 (shape as seen; gemini-cli #28229).
  const stderr = `Error authenticating: IneligibleTierError: This client is no longer supported for Gemini Code Assist for individuals. Learn more at https://goo.gle/gemini-cli-personal
    at setupUser (file:///home/ada/.npm-global/lib/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:311457:19)
    at async createContentGenerator (file:///home/ada/.npm-global/lib/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:288018:23)`;

  it('is a ToolAuthError (401) that says why and names what works, with Google’s first line and no stack trace', () => {
    const e = classifyFailure(stderr, { exitCode: 1, stderrTail: stderr });
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ code: 'tool_auth_required', httpStatus: 401 });
    for (const works of ['GEMINI_API_KEY', 'Vertex AI', 'Code Assist Standard/Enterprise', 'Antigravity CLI'])
      expect(e.message).toContain(works);
    expect(e.message).toContain('Google said: Error authenticating: IneligibleTierError: This client is no longer supported');
    expect(e.message).not.toMatch(/\bat setupUser|file:\/\/|chunk-JDPZ4CE3/);
  });

  it('is recognised in an ACP error answer too', () => {
    expect(
      classifyFailure('IneligibleTierError: This client is no longer supported for Gemini Code Assist for individuals.'),
    ).toBeInstanceOf(ToolAuthError);
  });
});
