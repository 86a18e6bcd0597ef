import { describe, expect, it } from '@jest/globals';
import { generateText, type ModelMessage } from 'ai';
import { toFinishReason, toUsage } from './result.js';
import { StreamPartsBuilder } from './stream-parts.js';
import { useProviderFixture } from './testing/fixture.js';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';

const { setup } = useProviderFixture();

describe('usage and finish reasons from each tool’s own keys', () => {
  it('Codex counts cached input inside input_tokens and reasoning inside output_tokens', () => {
    expect(toUsage({ input_tokens: 1234, cached_input_tokens: 1000, output_tokens: 56, reasoning_output_tokens: 7 })).toEqual({
      inputTokens: { total: 1234, noCache: 234, cacheRead: 1000, cacheWrite: undefined },
      outputTokens: { total: 56, text: 49, reasoning: 7 },
      raw: { input_tokens: 1234, cached_input_tokens: 1000, output_tokens: 56, reasoning_output_tokens: 7 },
    });
  });

  it('Claude Code counts cache reads and writes beside input_tokens', () => {
    const u = toUsage({ input_tokens: 21, cache_read_input_tokens: 300, cache_creation_input_tokens: 40, output_tokens: 5 });
    expect(u.inputTokens).toEqual({ total: 361, noCache: 21, cacheRead: 300, cacheWrite: 40 });
    expect(u.outputTokens).toEqual({ total: 5, text: undefined, reasoning: undefined });
  });

  it('counts a tool does not report stay unknown, not zero', () => {
    expect(toUsage({})).toMatchObject({
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    });
  });

  it('a truncated answer is length under every tool’s name for it; the raw reason is kept', () => {
    expect(toFinishReason({ done_reason: 'length' })).toEqual({ unified: 'length', raw: 'length' });
    expect(toFinishReason({ stopReason: 'max_tokens' })).toEqual({ unified: 'length', raw: 'max_tokens' });
    expect(toFinishReason({ finishReason: 'stop' })).toEqual({ unified: 'stop', raw: 'stop' });
    expect(toFinishReason({})).toEqual({ unified: 'stop', raw: undefined });
  });
});

describe('stream parts', () => {
  const done = (content: string) => ({
    type: 'done' as const,
    response: {
      toolId: 't',
      type: 'agent' as const,
      model: 'm',
      result: { message: { role: 'assistant' as const, content }, usage: {} },
      latencyMs: 1,
    },
  });

  it('an answer that came without deltas still arrives as text before finish', () => {
    const parts = new StreamPartsBuilder('n').push(done('whole answer'));
    expect(parts.map((p) => p.type)).toEqual(['text-start', 'text-delta', 'text-end', 'response-metadata', 'finish']);
    expect(parts[1]).toMatchObject({ delta: 'whole answer' });
  });

  it('a step left unfinished when the turn ends gets its last state as its result', () => {
    const b = new StreamPartsBuilder('n');
    const call = b.push({ type: 'activity', activity: { id: 's', kind: 'web_search', status: 'started', title: 'Search: x', query: 'x' } });
    expect(call).toEqual([expect.objectContaining({ type: 'tool-call', toolName: 'web_search', input: '{"query":"x"}' })]);
    const end = b.push(done('ok'));
    expect(end[0]).toMatchObject({ type: 'tool-result', result: { status: 'started' } });
    expect(end[0]).not.toHaveProperty('isError');
  });
});

describe('a conversation carried by the app (no session)', () => {
  it('the previous answer’s own steps and reasoning in the history are left out silently; its text is kept', async () => {
    const agent = scriptedAdapter('agent', {
      script: [
        {
          activity: [
            { id: 'r', kind: 'reasoning', status: 'completed', title: 'Hm', text: 'Hm.' },
            { id: 'c', kind: 'command', status: 'completed', title: 'ls', command: 'ls', exitCode: 0 },
          ],
          deltas: ['Two files.'],
        },
        { deltas: ['Yes.'] },
      ],
    });
    const { provider } = await setup({ adapters: [agent] });
    const first = await generateText({ model: provider('agent'), prompt: 'What is here?' });
    const history: ModelMessage[] = [{ role: 'user', content: 'What is here?' }, ...first.response.messages];
    expect(JSON.stringify(history)).toContain('tool-call');
    const second = await generateText({ model: provider('agent'), messages: [...history, { role: 'user', content: 'Sure?' }] });
    expect(second.text).toBe('Yes.');
    expect(second.warnings).toEqual([]);
    expect(agent.requests[1]!.messages.map((m) => [m.role, m.content.map((p) => (p.type === 'text' ? p.text : p.type)).join('')])).toEqual([
      ['user', 'What is here?'],
      ['assistant', 'Two files.'],
      ['user', 'Sure?'],
    ]);
  });

  it('results of caller-defined tools cannot be sent: a warning says they were left out', async () => {
    const agent = scriptedAdapter('agent');
    const { provider } = await setup({ adapters: [agent] });
    const r = await generateText({
      model: provider('agent'),
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: { city: 'Oslo' } }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'w1', toolName: 'weather', output: { type: 'json', value: { t: 3 } } }],
        },
        { role: 'user', content: 'So?' },
      ],
    });
    expect(r.warnings!.map((w) => (w as { message: string }).message)).toEqual([
      expect.stringContaining('assistant tool-call parts'),
      expect.stringContaining('tool messages'),
    ]);
  });
});
