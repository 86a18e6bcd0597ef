import { describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, ToolAuthError, type StreamEvent } from '@toolbridge/core';
import type { ProcessResult } from '@toolbridge/adapter-kit';
import { StreamParser } from './events.js';
import { captureText } from './testing/fake-claude.js';

const exited = (exitCode: number, stderrTail = ''): ProcessResult => ({
  exitCode,
  signal: null,
  stderrTail,
  stdoutBytes: 0,
  durationMs: 1,
});

async function replay(name: string): Promise<{ parser: StreamParser; events: StreamEvent[]; rateLimits: unknown[] }> {
  const parser = new StreamParser();
  const events: StreamEvent[] = [];
  const rateLimits: unknown[] = [];
  for (const line of (await captureText(name)).split('\n')) {
    const r = parser.push(line);
    events.push(...r.events);
    if (r.rateLimit) rateLimits.push(r.rateLimit);
  }
  return { parser, events, rateLimits };
}

describe('StreamParser on real captures', () => {
  it('reads the answer, integer usage, model and metadata from a successful run', async () => {
    const { parser, events } = await replay('claude-mock-stream.out');
    expect(events).toEqual([{ type: 'delta', text: 'Hello from mock' }]);
    const result = parser.finish(exited(0));
    expect(result.message).toEqual({ role: 'assistant', content: 'Hello from mock' });
    expect(result.usage).toEqual({ input_tokens: 21, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 });
    expect(result.model).toBe('claude-opus-5-5');
    expect(result.metadata).toMatchObject({
      nativeSessionId: '1982b433-e8b3-4768-8988-15b683071763',
      totalCostUsd: 0.000184,
      durationMs: 232,
      numTurns: 1,
      stopReason: 'end_turn',
    });
  });

  it('streams partial deltas once (not again from the assistant message)', async () => {
    const { parser, events } = await replay('claude-partial-stream.out');
    expect(events).toEqual([
      { type: 'delta', text: 'Hello fr' },
      { type: 'delta', text: 'om mock' },
    ]);
    expect(parser.finish(exited(0)).message.content).toBe('Hello from mock');
  });

  it('logged out: authentication_failed is a ToolAuthError although subtype says success', async () => {
    const { parser, events } = await replay('claude-p-stream.out');
    expect(events).toEqual([]);
    const error = (() => {
      try {
        parser.finish(exited(1));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ToolAuthError);
    expect(error).toMatchObject({ toolId: 'claude-code', code: 'tool_auth_required' });
    expect((error as Error).message).toMatch(/Not logged in/);
  });

  const failing = async (name: string) => {
    const { parser } = await replay(name);
    try {
      parser.finish(exited(1, 'some stderr'));
    } catch (e) {
      return e as Error;
    }
    throw new Error('expected a failure');
  };

  it('401 is a ToolAuthError', async () => {
    const e = await failing('claude-401-stream.out');
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ details: expect.objectContaining({ apiErrorStatus: 401 }) });
  });

  it('429 and 529 are retryable RateLimitErrors, not quota errors', async () => {
    for (const name of ['claude-429-stream.out', 'claude-529-stream.out', 'claude-err.out']) {
      const e = await failing(name);
      expect(e).toBeInstanceOf(RateLimitError);
      expect(QuotaExceededError.isInstance(e)).toBe(false);
      expect(e).toMatchObject({ retryable: true, httpStatus: 429, toolId: 'claude-code' });
    }
  });

  it('a used-up window is a QuotaExceededError with its reset time', async () => {
    const { parser, rateLimits } = await replay('claude-quota-stream.out');
    expect(rateLimits).toHaveLength(1);
    let e: unknown;
    try {
      parser.finish(exited(1));
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect((e as QuotaExceededError).resetsAt?.toISOString()).toBe(new Date(1795322251 * 1000).toISOString());
    expect((e as QuotaExceededError).code).toBe('quota_exceeded');
  });

  it('an unreachable API is a retryable ProviderExecutionError', async () => {
    const e = await failing('claude-fakekey-noretry.out');
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e).toMatchObject({ retryable: true, code: 'provider_execution_failed' });
    expect(e.message).toMatch(/Can't reach the API server/);
    expect(e.message).toMatch(/some stderr/);
  });

  it('reports rate_limit_event info', async () => {
    const { rateLimits, parser } = await replay('claude-rl.out');
    expect(rateLimits).toEqual([
      expect.objectContaining({ unifiedWindows: expect.objectContaining({ five_hour: expect.objectContaining({ utilization: 0.42 }) }) }),
    ]);
    expect(parser.finish(exited(0)).model).toBe('claude-sonnet-5-5');
  });

  it('no result: garbage, crash and silence are ProviderExecutionErrors naming what happened', () => {
    const garbage = new StreamParser();
    garbage.push('Segmentation fault (core dumped)');
    expect(() => garbage.finish(exited(0))).toThrow(/not stream-json/);
    const crash = new StreamParser();
    crash.push('{"type":"system","subtype":"init","model":"m"}');
    expect(() => crash.finish({ ...exited(0), exitCode: null, signal: 'SIGSEGV' })).toThrow(/killed by SIGSEGV/);
    expect(() => new StreamParser().finish(exited(3, 'boom'))).toThrow(/ended without a result \(it exited with code 3\): boom/);
  });

  it('separates text of later turns and reports tool use as activity', () => {
    const p = new StreamParser();
    const events = [
      '{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}',
      '{"type":"assistant","message":{"id":"sub","content":[{"type":"text","text":"subagent"}]},"parent_tool_use_id":"t1"}',
      '{"type":"assistant","message":{"id":"b","content":[{"type":"text","text":"Done."}]}}',
    ].flatMap((l) => p.push(l).events);
    expect(events).toEqual([
      { type: 'delta', text: 'Looking.' },
      { type: 'activity', activity: { id: 't1', kind: 'tool_call', status: 'started', title: 'Read', name: 'Read' } },
      { type: 'activity', activity: { id: 't1', kind: 'tool_call', status: 'completed', title: 'Read', name: 'Read', output: 'x' } },
      { type: 'delta', text: '\n\n' },
      { type: 'delta', text: 'Done.' },
    ]);
  });

  it('a JSON answer is the StructuredOutput call, also when Claude Code gave up on the schema (core checks it)', async () => {
    const lines = (await captureText('claude-structured.out')).split('\n');
    const ok = new StreamParser({ structured: { wrapped: false } });
    for (const l of lines) ok.push(l);
    expect(ok.finish(exited(0)).message.content).toBe('{"name":"Ada","age":36}');

    const invalid = new StreamParser({ structured: { wrapped: false } });
    for (const l of (await captureText('claude-structured-invalid.out')).split('\n')) invalid.push(l);
    const result = invalid.finish(exited(1));
    expect(result.message.content).toBe('{"name":"Ada","age":"old"}');
    expect(result.metadata.structuredOutputError).toMatch(/after 1 attempts .*must be integer/);
    // Without a requested format the same run is an error.
    const plain = new StreamParser();
    for (const l of (await captureText('claude-structured-invalid.out')).split('\n')) plain.push(l);
    expect(() => plain.finish(exited(1))).toThrow(ProviderExecutionError);
  });

  it('a wrapped schema is unwrapped', () => {
    const p = new StreamParser({ structured: { wrapped: true } });
    p.push('{"type":"result","subtype":"success","is_error":false,"result":"{}","structured_output":{"value":[1,2]}}');
    expect(p.finish(exited(0)).message.content).toBe('[1,2]');
  });

  it('a session Claude Code no longer has is a clear, non-retryable error', async () => {
    const { parser } = await replay('claude-resume-missing.out');
    let error: unknown;
    try {
      parser.finish(exited(1, await captureText('claude-resume-missing.err')));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ retryable: false, publicDetails: { reason: 'native_session_missing' } });
    expect((error as Error).message).toMatch(/no longer has the session 00000000-0000-4000-8000-000000000000/);
  });

  it('the turn cost is what this turn spent; the session total is kept apart', () => {
    const p = new StreamParser();
    p.push(
      '{"type":"result","subtype":"success","is_error":false,"result":"x","total_cost_usd":0.5,"model_usage_since_last_result":{"m":{"costUSD":0.1}}}',
    );
    expect(p.finish(exited(0)).metadata).toMatchObject({ totalCostUsd: 0.1, sessionCostUsd: 0.5 });
  });

  it('a dropped stream that Claude Code asked again does not repeat the text already streamed', async () => {
    // The capture is a warm process: its second turn streams three pieces, loses the connection, and gets "x" whole.
    const lines = (await captureText('claude-warm-stream-drop.out')).split('\n');
    const p = new StreamParser();
    const events = lines.slice(lines.findIndex((l) => l.includes('"type":"result"')) + 1).flatMap((l) => p.push(l).events);
    expect(events.map((e) => (e.type === 'delta' ? e.text : e.type))).toEqual(['p0 ', 'p1 ', 'p2 ', '\n\n', 'x']);
    expect(p.finish(exited(0)).message.content).toBe('x');
  });

  it('a re-asked answer that continues the cut-off text streams only the rest', () => {
    const p = new StreamParser();
    const events = [
      '{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}}',
      '{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"Hello "}}}',
      '{"type":"stream_event","event":{"type":"message_stop"},"abandoned_blocks":{"api_message_id":"m1","from_block_index":0}}',
      '{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Hello world"}]}}',
    ].flatMap((l) => p.push(l).events);
    expect(events).toEqual([
      { type: 'delta', text: 'Hello ' },
      { type: 'delta', text: 'world' },
    ]);
  });
});
