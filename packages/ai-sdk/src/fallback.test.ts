import { describe, expect, it } from '@jest/globals';
import { APICallError, InvalidArgumentError, NoSuchModelError } from '@ai-sdk/provider';
import { waitForPidsGone } from '@toolbridge/test-suite/kit';
import { generateText, streamText, type TextStreamPart, type ToolSet } from 'ai';
import { ProviderExecutionError } from 'toolbridge';
import { useProviderFixture } from './testing/fixture.js';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';

const { setup } = useProviderFixture();

describe('toolbridge.fallback([...]) as one model (real ai 7)', () => {
  it('generateText: a logged-out Claude Code is passed over, Codex answers; the attempts are in providerMetadata', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('claude', 'logged_out');
    const model = provider.fallback(['claude-code', 'codex', 'ollama'], { retries: 1 });
    expect(model).toMatchObject({ provider: 'toolbridge.fallback', modelId: 'claude-code,codex,ollama' });
    const r = await generateText({ model, prompt: 'Say hello' });
    expect(r.text).toBe('Hello from mock');
    const meta = r.providerMetadata!.toolbridge as { toolId: string; fallbackUsed: boolean; attempts: Array<Record<string, unknown>> };
    expect(meta).toMatchObject({ toolId: 'codex', fallbackUsed: true, sessionId: expect.stringMatching(/^tbs_/) });
    expect(meta.attempts.map((a) => [a.toolId, a.outcome, a.reason ?? null])).toEqual([
      ['claude-code', 'failed', 'unauthenticated'],
      ['codex', 'succeeded', null],
    ]);
  });

  it('perAttemptTimeoutMs: a hanging Codex is cut off (its process killed) and Ollama answers', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('codex', 'hang');
    const r = await generateText({ model: provider.fallback(['codex', 'ollama'], { perAttemptTimeoutMs: 800 }), prompt: 'Hi' });
    expect(r.text).toBe('Hello from ollama');
    expect(r.providerMetadata!.toolbridge).toMatchObject({
      toolId: 'ollama',
      fallbackUsed: true,
      attempts: [expect.objectContaining({ toolId: 'codex', reason: 'timeout' }), expect.objectContaining({ toolId: 'ollama' })],
    });
    const pids = (await machine.runs('codex')).filter((run) => run.argv[0] === 'exec').map((run) => run.pid);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('streamText: the failed attempt’s unfinished steps get error results, then the next tool’s answer streams', async () => {
    const failing = scriptedAdapter('first', {
      script: [
        {
          activity: [{ id: 'c1', kind: 'command', status: 'started', title: 'make', command: 'make' }],
          error: new ProviderExecutionError('the first tool crashed', { toolId: 'first' }),
        },
      ],
    });
    const second = scriptedAdapter('second', {
      script: [{ activity: [{ id: 'c1', kind: 'command', status: 'completed', title: 'ls', command: 'ls' }], deltas: ['Fine.'] }],
    });
    const { provider } = await setup({ adapters: [failing, second] });
    const result = streamText({ model: provider.fallback(['first', 'second']), prompt: 'Build it' });
    const parts: Array<TextStreamPart<ToolSet>> = [];
    for await (const p of result.fullStream) parts.push(p);
    expect(await result.text).toBe('Fine.');
    const calls = parts.filter((p) => p.type === 'tool-call');
    expect(calls.map((c) => c.input)).toEqual([{ command: 'make' }, { command: 'ls' }]);
    // The same step id from two tools is two calls.
    expect(calls[0]!.toolCallId).not.toBe(calls[1]!.toolCallId);
    expect(parts.find((p) => p.type === 'tool-error')).toMatchObject({
      toolCallId: calls[0]!.toolCallId,
      error: { status: 'failed', attempt: { toolId: 'first', reason: 'provider_execution_failed' } },
    });
    expect(parts.find((p) => p.type === 'tool-result')).toMatchObject({ toolCallId: calls[1]!.toolCallId });
    expect(await result.providerMetadata).toMatchObject({ toolbridge: { toolId: 'second', fallbackUsed: true } });
  });

  it('temperature in a mixed chain: it reaches Ollama, and the agents that ignore it are named in a warning', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('claude', 'logged_out');
    const r = await generateText({ model: provider.fallback(['claude-code', 'ollama']), prompt: 'Hi', temperature: 0.1 });
    expect(r.text).toBe('Hello from ollama');
    expect(machine.ollama.chats.at(-1)).toMatchObject({ options: { temperature: 0.1 } });
    expect(r.warnings).toEqual([
      expect.objectContaining({ feature: 'temperature', details: expect.stringContaining('Claude Code (in this fallback chain)') }),
    ]);
  });

  it('every tool failing: an APICallError with the attempts, retryable as Toolbridge classified the last failure', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('claude', 'logged_out');
    await machine.setMode('codex', 'fail');
    const error = await generateText({ model: provider.fallback(['claude-code', 'codex']), prompt: 'Hi', maxRetries: 0 }).catch((e) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      statusCode: 502,
      url: 'toolbridge://fallback',
      requestBodyValues: { providers: ['claude-code', 'codex'] },
    });
    // Codex's "high demand" failure is transient by Codex's own classification, so the AI SDK may retry the chain.
    expect(error.cause.lastError).toMatchObject({ code: 'provider_execution_failed', retryable: true });
    expect(error.isRetryable).toBe(true);
    expect(error.data.attempts.map((a: { toolId: string }) => a.toolId)).toEqual(['claude-code', 'codex']);
    expect(JSON.stringify(error.requestBodyValues)).not.toContain('Hi');
  });

  it('refuses model ids and unknown tools in the chain when the model is made', async () => {
    const { provider } = await setup();
    const withModel = (() => provider.fallback(['codex', 'ollama/qwen3:14b'])) as () => unknown;
    expect(withModel).toThrow(InvalidArgumentError);
    expect(withModel).toThrow(/tool ids, not models/);
    const unknown = (() => provider.fallback(['codex', 'nope'])) as () => unknown;
    expect(unknown).toThrow(NoSuchModelError);
    expect((() => provider.fallback([])) as () => unknown).toThrow(InvalidArgumentError);
  });
});
