import { describe, expect, it } from '@jest/globals';
import { InvalidArgumentError } from '@ai-sdk/provider';
import { generateObject, generateText, Output, streamObject, tool } from 'ai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { ChatRequest } from 'toolbridge';
import { createToolbridge } from './index.js';
import { useProviderFixture } from './testing/fixture.js';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';

const { setup } = useProviderFixture();
const person = z.object({ name: z.string(), age: z.number().int() });
/** A key of that schema as it shows in a request body: quoted, the quotes escaped once more when inside a message. */
const schemaKey = /\\*"age\\*"/;

describe('generateText over the fake CLIs and the in-test Ollama (real ai 7)', () => {
  it('one agent: text, usage from its own counts, its activity as provider-executed tool calls, metadata', async () => {
    const { provider } = await setup();
    const r = await generateText({ model: provider('codex'), prompt: 'Say hello' });
    expect(r.text).toBe('Hello from mock');
    // Codex counts cached input inside input_tokens; its reasoning inside output_tokens.
    expect(r.usage).toMatchObject({
      inputTokens: 1234,
      inputTokenDetails: { noCacheTokens: 234, cacheReadTokens: 1000 },
      outputTokens: 56,
      outputTokenDetails: { textTokens: 49, reasoningTokens: 7 },
      totalTokens: 1290,
    });
    // The recording starts with a notice item ("Model metadata ... not found"): one step, with its result.
    expect(r.toolCalls).toEqual([expect.objectContaining({ type: 'tool-call', toolName: 'error', providerExecuted: true, dynamic: true })]);
    expect(r.toolResults).toEqual([
      expect.objectContaining({ toolCallId: r.toolCalls[0]!.toolCallId, output: expect.objectContaining({ status: 'completed' }) }),
    ]);
    expect(r.finishReason).toBe('stop');
    expect(r.providerMetadata?.toolbridge).toMatchObject({
      toolId: 'codex',
      sessionId: expect.stringMatching(/^tbs_/),
      fallbackUsed: false,
      attempts: [{ toolId: 'codex', outcome: 'succeeded', stage: 'execution' }],
    });
    expect(r.response.modelId).toEqual(expect.any(String));
    expect(r.warnings).toEqual([]);
  });

  it('Claude Code: its stop reason and cache counts; an unsupported temperature is a warning, not a silent drop', async () => {
    const { provider } = await setup();
    const r = await generateText({ model: provider('claude-code'), prompt: 'Say hello', temperature: 0.2 });
    expect(r.text).toBe('Hello from mock');
    expect(r.finishReason).toBe('stop');
    expect(r.rawFinishReason).toBe('end_turn');
    expect(r.usage).toMatchObject({ inputTokens: 21, outputTokens: 5, inputTokenDetails: { cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(r.warnings).toEqual([expect.objectContaining({ type: 'unsupported', feature: 'temperature' })]);
    expect(r.warnings![0]).toMatchObject({ details: expect.stringContaining('Claude Code') });
  });

  it('Ollama with a model id: the model, temperature and max tokens reach it, and no warning', async () => {
    const { provider, machine } = await setup();
    const r = await generateText({
      model: provider('ollama/qwen3:14b'),
      system: 'Be brief.',
      prompt: 'Say hello',
      temperature: 0.3,
      maxOutputTokens: 50,
    });
    expect(r.text).toBe('Hello from ollama');
    expect(r.warnings).toEqual([]);
    expect(r.providerMetadata?.toolbridge).toMatchObject({ toolId: 'ollama', model: 'qwen3:14b' });
    const sent = machine.ollama.chats.at(-1)!;
    expect(sent).toMatchObject({ model: 'qwen3:14b', options: { temperature: 0.3, num_predict: 50 } });
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('caller-defined tools and other unsupported settings are warnings; the tools are not offered', async () => {
    const { provider } = await setup();
    const weather = tool({ description: 'Weather', inputSchema: z.object({ city: z.string() }), execute: async () => ({ t: 20 }) });
    const r = await generateText({ model: provider('claude-code'), prompt: 'Weather?', tools: { weather }, topP: 0.9, seed: 7 });
    expect(r.text).toBe('Hello from mock');
    expect(r.warnings!.map((w) => ('feature' in w ? w.feature : w.type))).toEqual(['topP', 'seed', 'tools']);
    expect(JSON.stringify(r.warnings)).toContain('weather');
  });

  it('sessions: the sessionId from providerMetadata continues the conversation, sending only the new messages', async () => {
    const { provider: base } = await setup();
    // Watch what reaches the library: the session holds the first turn, so only the new message goes.
    const tb = base.toolbridge;
    const sent: ChatRequest[] = [];
    const provider = createToolbridge({
      instance: { ...tb, chatWith: (id, req, o) => (sent.push(req as ChatRequest), tb.chatWith(id, req, o)) },
    });
    const first = await generateText({ model: provider('ollama'), prompt: 'First question' });
    const sessionId = (first.providerMetadata!.toolbridge as { sessionId: string }).sessionId;
    const second = await generateText({
      model: provider('ollama'),
      // The whole history, as useChat sends it.
      messages: [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: first.text },
        { role: 'user', content: 'Second question' },
      ],
      providerOptions: { toolbridge: { sessionId } },
    });
    expect(sent[1]).toMatchObject({ sessionId, messages: [{ role: 'user', content: 'Second question' }] });
    expect(second.providerMetadata?.toolbridge).toMatchObject({ sessionId });
    expect((await tb.sessions.list()).find((s) => s.id === sessionId)).toMatchObject({ turns: 2, toolId: 'ollama' });
  });

  it('providerOptions.toolbridge: cwd and permissions reach the tool; a wrong type throws, an unknown key warns', async () => {
    const agent = scriptedAdapter('scripted', { script: [{ deltas: ['done'] }] });
    const { provider } = await setup({ adapters: [agent] });
    const dir = await mkdtemp(path.join(tmpdir(), 'tb-ai-sdk-cwd-'));
    try {
      const r = await generateText({
        model: provider('scripted'),
        prompt: 'Look around',
        providerOptions: { toolbridge: { cwd: dir, permissions: 'workspace-write', colour: 'blue' } },
      });
      expect(r.text).toBe('done');
      expect(agent.calls[0]!.ctx.cwd).toBe(dir);
      expect(agent.requests[0]!.permissions).toBe('workspace-write');
      expect(r.warnings).toEqual([expect.objectContaining({ type: 'other', message: expect.stringContaining('colour') })]);
      const error = await generateText({
        model: provider('scripted'),
        prompt: 'x',
        providerOptions: { toolbridge: { permissions: 'root' } },
      }).catch((e) => e);
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ argument: 'providerOptions.toolbridge.permissions' });
      expect(agent.requests).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('structured output through Toolbridge JSON-Schema answers', () => {
  it('generateObject with a schema: the schema reaches the tool, the checked object comes back', async () => {
    const { provider, machine } = await setup({ ollama: { reply: '{"name":"Ada","age":36}' } });
    const r = await generateObject({ model: provider('ollama'), schema: person, prompt: 'Who wrote the first program?' });
    expect(r.object).toEqual({ name: 'Ada', age: 36 });
    // The schema reaches Ollama (in words or as its native `format`, whichever the adapter does).
    expect(JSON.stringify(machine.ollama.chats.at(-1))).toMatch(schemaKey);
  });

  it('streamObject with a schema, and Output.json() for any JSON', async () => {
    const { provider, machine } = await setup({ ollama: { reply: '{"name":"Ada","age":36}' } });
    const s = streamObject({ model: provider('ollama'), schema: person, prompt: 'Who?' });
    const partials = [];
    for await (const partial of s.partialObjectStream) partials.push(partial);
    expect(partials.at(-1)).toEqual({ name: 'Ada', age: 36 });
    expect(await s.object).toEqual({ name: 'Ada', age: 36 });
    const j = await generateText({ model: provider('ollama'), output: Output.json(), prompt: 'Any JSON' });
    expect(j.output).toEqual({ name: 'Ada', age: 36 });
    // Any JSON: asked for JSON (in words or natively), without a schema.
    const sent = JSON.stringify(machine.ollama.chats.at(-1));
    expect(sent.includes('single JSON value only') || sent.includes('"format":"json"')).toBe(true);
    expect(sent).not.toMatch(schemaKey);
  });

  it('Output.object with generateText, and an answer off the schema fails as the library says (after its one repair turn)', async () => {
    const { provider } = await setup({ ollama: { reply: '{"name":"Ada","age":36}' } });
    const ok = await generateText({ model: provider('ollama'), output: Output.object({ schema: person }), prompt: 'Who?' });
    expect(ok.output).toEqual({ name: 'Ada', age: 36 });

    const { provider: other, machine } = await setup({ ollama: { reply: '{"name":"Ada"}' } });
    const error = await generateObject({ model: other('ollama'), schema: person, prompt: 'Who?', maxRetries: 0 }).catch((e) => e);
    expect(error).toMatchObject({ name: 'AI_APICallError', statusCode: 502, isRetryable: false });
    expect(error.data).toMatchObject({ code: 'provider_execution_failed', details: { reason: 'schema_mismatch' } });
    expect(machine.ollama.chats).toHaveLength(2);
  });
});
