import { describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, TimeoutError, ToolAuthError } from '@toolbridge/core';
import { parseModelList } from './detect.js';
import { classifyErrorMessage } from './failures.js';

describe('classifyErrorMessage (a turn ending stopReason "error")', () => {
  it('decides by the status leading the message', () => {
    expect(classifyErrorMessage('401 Incorrect API key provided')).toBeInstanceOf(ToolAuthError);
    const limited = classifyErrorMessage('429 Rate limit reached for requests. Please try again in 20s.');
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfterMs).toBe(20_000);
    expect(classifyErrorMessage('429 You exceeded your current quota')).toBeInstanceOf(QuotaExceededError);
    const server = classifyErrorMessage('503 upstream unavailable');
    expect(server).toBeInstanceOf(ProviderExecutionError);
    expect(server.retryable).toBe(true);
    expect(classifyErrorMessage('400 bad request').retryable).toBe(false);
    expect(classifyErrorMessage('504 gateway timeout')).toBeInstanceOf(TimeoutError);
  });

  it('falls back on the text when there is no status', () => {
    expect(classifyErrorMessage('Request timed out.')).toBeInstanceOf(TimeoutError);
    expect(classifyErrorMessage('No API key found for anthropic')).toBeInstanceOf(ToolAuthError);
    expect(classifyErrorMessage('Connection error.')).toBeInstanceOf(ProviderExecutionError);
  });
});

describe('parseModelList (`pi --list-models`, recorded from 0.73.1)', () => {
  it('reads provider/id and whether the model takes images', () => {
    const text =
      'provider  model       context  max-out  thinking  images\nmock      mock-model  128K     16.4K    no        yes   \nbad       m2          128K     16.4K    no        no\n';
    expect(parseModelList(text)).toEqual([
      { id: 'mock/mock-model', images: true },
      { id: 'bad/m2', images: false },
    ]);
    expect(parseModelList('No models available.\n')).toEqual([]);
  });
});
