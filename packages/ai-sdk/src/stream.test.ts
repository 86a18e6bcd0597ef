import { describe, expect, it } from '@jest/globals';
import { waitForPidsGone } from '@toolbridge/test-suite/kit';
import { readUIMessageStream, streamText, type TextStreamPart, type ToolSet, type UIMessage } from 'ai';
import type { Activity } from 'toolbridge';
import { useProviderFixture } from './testing/fixture.js';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';

const { setup } = useProviderFixture();
type Part = TextStreamPart<ToolSet>;

async function collect(stream: AsyncIterable<Part>): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const p of stream) parts.push(p);
  return parts;
}
const types = (parts: Part[]) => parts.map((p) => p.type);

/** An agent's turn: it thinks (the text grows with each update), runs a command, reads a file, answers. */
const thinking = (status: Activity['status'], text: string): Activity => ({ id: 'r1', kind: 'reasoning', status, title: 'Thinking', text });
const agentTurn: Activity[] = [
  thinking('started', 'Let me '),
  thinking('updated', 'Let me look at the '),
  thinking('completed', 'Let me look at the files.'),
  { id: 'c1', kind: 'command', status: 'started', title: 'ls', command: 'ls' },
  { id: 'c1', kind: 'command', status: 'completed', title: 'ls', command: 'ls', exitCode: 0, outputTail: 'README.md\n' },
  { id: 't1', kind: 'tool_call', status: 'started', title: 'Read', name: 'Read', input: '{"file_path":"README.md"}' },
  { id: 't1', kind: 'tool_call', status: 'failed', title: 'Read', name: 'Read', input: '{"file_path":"README.md"}', output: 'denied' },
];

describe('streamText (real ai 7)', () => {
  it('Ollama: text deltas as they come, then usage, finish and providerMetadata', async () => {
    const { provider } = await setup();
    const result = streamText({ model: provider('ollama'), prompt: 'Say hello' });
    const parts = await collect(result.fullStream);
    const deltas = parts.filter((p) => p.type === 'text-delta');
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(await result.text).toBe('Hello from ollama');
    expect(types(parts).filter((t) => t.startsWith('text-'))).toEqual(['text-start', ...deltas.map(() => 'text-delta'), 'text-end']);
    expect(await result.finishReason).toBe('stop');
    const usage = await result.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.inputTokens).toBe(usage.raw?.input_tokens);
    expect(await result.providerMetadata).toMatchObject({ toolbridge: { toolId: 'ollama', fallbackUsed: false } });
  });

  it("an agent's activity: reasoning parts, and its steps as provider-executed tool calls with results", async () => {
    const agent = scriptedAdapter('agent', { script: [{ activity: agentTurn, deltas: ['Two ', 'files.'] }] });
    const { provider } = await setup({ adapters: [agent] });
    const result = streamText({ model: provider('agent'), prompt: 'What is here?' });
    const parts = await collect(result.fullStream);
    expect(await result.text).toBe('Two files.');
    expect(await result.reasoningText).toBe('Let me look at the files.');
    expect(types(parts).filter((t) => t.startsWith('reasoning'))).toEqual([
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-end',
    ]);
    const calls = parts.filter((p) => p.type === 'tool-call');
    expect(calls).toEqual([
      expect.objectContaining({ toolName: 'command', input: { command: 'ls' }, providerExecuted: true, dynamic: true }),
      expect.objectContaining({ toolName: 'Read', input: { file_path: 'README.md' }, providerExecuted: true, dynamic: true }),
    ]);
    expect(parts.filter((p) => p.type === 'tool-result')).toEqual([
      expect.objectContaining({
        toolCallId: calls[0]!.toolCallId,
        output: { status: 'completed', title: 'ls', exitCode: 0, output: 'README.md\n' },
      }),
    ]);
    // A failed step is the AI SDK's tool error, with the tool's own words.
    expect(parts.filter((p) => p.type === 'tool-error')).toEqual([
      expect.objectContaining({ toolCallId: calls[1]!.toolCallId, error: expect.objectContaining({ status: 'failed', output: 'denied' }) }),
    ]);
    // Every step comes before the answer's text, in the order the agent took them.
    expect(types(parts).indexOf('tool-call')).toBeLessThan(types(parts).indexOf('text-start'));
  });

  it('a UI built on the UI message stream shows the steps as dynamic tool parts with their output', async () => {
    const agent = scriptedAdapter('agent', { script: [{ activity: agentTurn.slice(3, 5), deltas: ['Done.'] }] });
    const { provider } = await setup({ adapters: [agent] });
    const result = streamText({ model: provider('agent'), prompt: 'List files' });
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: result.toUIMessageStream() })) last = message;
    expect(last!.parts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'dynamic-tool',
          toolName: 'command',
          state: 'output-available',
          providerExecuted: true,
          input: { command: 'ls' },
          output: expect.objectContaining({ exitCode: 0 }),
        }),
        expect.objectContaining({ type: 'text', text: 'Done.' }),
      ]),
    );
  });

  it("Codex over its recording: the agent's notice is a step, then the answer; raw events on request", async () => {
    const { provider } = await setup();
    const result = streamText({ model: provider('codex'), prompt: 'Say hello', includeRawChunks: true });
    const parts = await collect(result.fullStream);
    expect(await result.text).toBe('Hello from mock');
    expect(parts.find((p) => p.type === 'tool-call')).toMatchObject({ toolName: 'error', dynamic: true });
    const raw = parts.filter((p) => p.type === 'raw').map((p) => (p as { rawValue: { type: string } }).rawValue.type);
    expect(raw).toEqual(['activity', 'delta', 'done']);
  });

  it('abort mid-stream: the stream ends as aborted and the tool call is cancelled', async () => {
    const agent = scriptedAdapter('agent', { script: [{ deltas: ['one ', 'two ', 'three ', 'four '], delayMs: 150 }] });
    const { provider } = await setup({ adapters: [agent] });
    const controller = new AbortController();
    const result = streamText({ model: provider('agent'), prompt: 'Count', abortSignal: controller.signal });
    const parts: Part[] = [];
    for await (const p of result.fullStream) {
      parts.push(p);
      if (p.type === 'text-delta') controller.abort();
    }
    expect(types(parts)).toContain('abort');
    expect(parts.filter((p) => p.type === 'text-delta')).toHaveLength(1);
    expect(agent.aborts).toHaveLength(1);
  });

  it('cancelling the model stream itself (no abort signal) stops the tool at once', async () => {
    const agent = scriptedAdapter('agent', { script: [{ deltas: ['first '], hang: true }] });
    const { provider } = await setup({ adapters: [agent] });
    const { stream } = await provider('agent').doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
    const reader = stream.getReader();
    const seen: string[] = [];
    while (!seen.includes('text-delta')) seen.push((await reader.read()).value!.type);
    expect(seen).toEqual(['stream-start', 'text-start', 'text-delta']);
    await reader.cancel();
    expect(agent.aborts).toEqual([expect.objectContaining({ code: 'aborted' })]);
  });

  it('abort before the first event: a hanging Codex process is killed', async () => {
    const { provider, machine } = await setup();
    await machine.setMode('codex', 'hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 700);
    let error: unknown;
    const result = streamText({ model: provider('codex'), prompt: 'Hi', abortSignal: controller.signal, onError: (e) => void (error = e) });
    const parts = await collect(result.fullStream);
    expect(types(parts)).toContain('abort');
    expect(error).toBeUndefined();
    const pids = (await machine.runs('codex')).filter((r) => r.argv[0] === 'exec').map((r) => r.pid);
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });
});
