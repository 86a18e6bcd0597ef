import { describe, expect, it } from '@jest/globals';
import { APICallError, InvalidPromptError, LoadAPIKeyError, NoSuchModelError } from '@ai-sdk/provider';
import { waitForPidsGone } from '@toolbridge/test-suite/kit';
import { generateText, streamText } from 'ai';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError } from 'toolbridge';
import { useProviderFixture } from './testing/fixture.js';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';

const { setup } = useProviderFixture();
const secret = 'the secret prompt 4711';

describe('Toolbridge failures as AI SDK errors (real ai 7)', () => {
  it('an unknown tool id is a NoSuchModelError when the model is made; only language models exist', async () => {
    const { provider } = await setup();
    expect(() => provider('nope/some-model')).toThrow(NoSuchModelError);
    expect(() => provider('nope')).toThrow(/known tools: codex, claude-code, opencode, gemini, copilot, pi, qwen-code, ollama/);
    expect(() => provider.embeddingModel('codex')).toThrow(NoSuchModelError);
    expect(provider.languageModel('opencode/anthropic/claude-sonnet-4-5')).toMatchObject({
      specificationVersion: 'v4',
      provider: 'toolbridge.opencode',
      modelId: 'opencode/anthropic/claude-sonnet-4-5',
    });
  });

  it('not logged in: LoadAPIKeyError saying how to log in, the Toolbridge error as its cause', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('claude', 'logged_out');
    const error = await generateText({ model: provider('claude-code'), prompt: secret, maxRetries: 0 }).catch((e) => e);
    expect(LoadAPIKeyError.isInstance(error)).toBe(true);
    expect(ToolAuthError.isInstance(error.cause)).toBe(true);
    expect(error.message).toBe(error.cause.message);
    expect(error.message).not.toContain(secret);
  });

  it('a timeout is a retryable APICallError (504): the AI SDK retries it, each try a new process that is killed', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('codex', 'hang');
    const error = await generateText({
      model: provider('codex'),
      prompt: secret,
      maxRetries: 1,
      providerOptions: { toolbridge: { timeoutMs: 600 } },
    }).catch((e) => e);
    // After its retries the AI SDK wraps the last error.
    expect(error.name).toBe('AI_RetryError');
    expect(APICallError.isInstance(error.lastError)).toBe(true);
    expect(error.lastError).toMatchObject({ statusCode: 504, isRetryable: true, data: { code: 'timeout', toolId: 'codex' } });
    const pids = (await machine.runs('codex')).filter((r) => r.argv[0] === 'exec').map((r) => r.pid);
    expect(pids).toHaveLength(2);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('rate limits carry the wait as retry-after-ms; a failure Toolbridge calls final is not retried', async () => {
    const tool = scriptedAdapter('agent', {
      script: [
        { error: new RateLimitError('agent is rate limited', { toolId: 'agent', retryAfterMs: 1200 }) },
        { error: new QuotaExceededError('agent plan used up', { toolId: 'agent', resetsAt: new Date(Date.now() + 3_600_000) }) },
        { error: new ProviderExecutionError('agent broke', { toolId: 'agent' }) },
      ],
    });
    const { provider } = await setup({ adapters: [tool] });
    const call = () => generateText({ model: provider('agent'), prompt: 'x', maxRetries: 0 }).catch((e) => e);
    const limited = await call();
    expect(limited).toMatchObject({ statusCode: 429, isRetryable: true, responseHeaders: { 'retry-after-ms': '1200' } });
    const quota = await call();
    expect(quota).toMatchObject({ statusCode: 429, data: { code: 'quota_exceeded' } });
    expect(Number(quota.responseHeaders['retry-after-ms'])).toBeGreaterThan(3_500_000);
    const broke = await generateText({ model: provider('agent'), prompt: 'x', maxRetries: 2 }).catch((e) => e);
    expect(broke).toMatchObject({ name: 'AI_APICallError', statusCode: 502, isRetryable: false });
    expect(tool.requests).toHaveLength(3);
  });

  it('a bad request the library refuses is an InvalidPromptError with its message', async () => {
    const { provider } = await setup();
    const error = await generateText({
      model: provider('codex'),
      prompt: 'x',
      maxRetries: 0,
      providerOptions: { toolbridge: { cwd: '/definitely/not/here' } },
    }).catch((e) => e);
    expect(InvalidPromptError.isInstance(error)).toBe(true);
    expect(error.message).toContain('cwd');
  });

  it('a failure after text has streamed ends the stream with an error part, the text so far kept', async () => {
    const tool = scriptedAdapter('agent', {
      script: [{ deltas: ['Hello ', 'world'], failAfterDeltas: 1, error: new ProviderExecutionError('agent died', { toolId: 'agent' }) }],
    });
    const { provider } = await setup({ adapters: [tool] });
    const errors: unknown[] = [];
    const result = streamText({ model: provider('agent'), prompt: 'x', onError: ({ error }) => void errors.push(error) });
    const parts = [];
    for await (const p of result.fullStream) parts.push(p);
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text)).toEqual(['Hello ']);
    expect(parts.find((p) => p.type === 'error')).toMatchObject({ error: { name: 'AI_APICallError', statusCode: 502 } });
    expect(errors).toHaveLength(1);
  });

  it('generateText aborted: rejects with the signal’s AbortError and the running tool is killed', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('claude', 'hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 600);
    const error = await generateText({ model: provider('claude-code'), prompt: 'x', abortSignal: controller.signal }).catch((e) => e);
    expect(error.name).toBe('AbortError');
    const pids = (await machine.runs('claude')).filter((r) => r.argv[0] === '-p').map((r) => r.pid);
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });
});
