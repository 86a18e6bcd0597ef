import { describe, expect, it } from '@jest/globals';
import type { Activity, StreamEvent } from '@toolbridge/core';
import { CopilotEventParser } from './events.js';
import { capture } from './testing/fake-copilot.js';
import { usageFromReport } from './usage.js';

function parse(name: string) {
  const parser = new CopilotEventParser();
  const events: StreamEvent[] = capture(name)
    .split('\n')
    .flatMap((l) => parser.push(l));
  const activities = events.flatMap((e): Activity[] => (e.type === 'activity' ? [e.activity] : []));
  return { parser, events, activities };
}

describe('Copilot JSON events', () => {
  it('passes message deltas on as text and keeps the end state', () => {
    const { parser, events } = parse('copilot-ok.out');
    expect(events).toEqual([
      { type: 'delta', text: 'Hello ' },
      { type: 'delta', text: 'from ' },
      { type: 'delta', text: 'mock' },
    ]);
    expect(parser).toMatchObject({ text: 'Hello from mock', model: 'mock-model', exitCode: 0, aborted: false });
    expect(parser.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(parser.runUsage).toMatchObject({ premiumRequests: 0 });
  });

  it('reports tool executions under one id each, with their outcome', () => {
    const { activities, parser } = parse('copilot-tools-workspace-write.out');
    const final = activities.filter((a) => a.status !== 'started');
    expect(final).toEqual([
      expect.objectContaining({
        kind: 'command',
        status: 'failed',
        command: 'echo from-shell > shell.txt',
        outputTail: expect.stringMatching(/denied/),
      }),
      expect.objectContaining({
        kind: 'file_change',
        status: 'completed',
        changes: [{ path: expect.stringMatching(/\/work\/hello\.txt$/), kind: 'add' }],
      }),
    ]);
    expect(activities.filter((a) => a.status === 'started').map((a) => a.id)).toEqual(final.map((a) => a.id));
    expect(parser.text).toBe('All done.');
  });

  it('gives a shell step its exit code under full permissions', () => {
    const { activities } = parse('copilot-tools-full.out');
    expect(activities.find((a) => a.kind === 'command' && a.status === 'completed')).toMatchObject({ exitCode: 0 });
  });

  it('keeps reasoning as an activity, never as text', () => {
    const { parser, activities } = parse('copilot-thinking.out');
    expect(activities).toContainEqual(expect.objectContaining({ kind: 'reasoning', text: 'Thinking about greeting.' }));
    expect(parser.text).not.toContain('Thinking');
  });

  it('notes the failed call Copilot retries, and the session error it ends with', () => {
    const { parser, activities } = parse('copilot-err-429.out');
    expect(parser.retrying).toBe(true);
    expect(parser.lastCallFailure).toMatchObject({ statusCode: 429, errorMessage: expect.stringContaining('rate_limit_exceeded') });
    expect(parser.error).toMatchObject({ errorType: 'rate_limit', statusCode: 429 });
    expect(activities).toContainEqual(expect.objectContaining({ kind: 'other', rawType: 'retry', detail: 'rate_limit' }));
    expect(parser.exitCode).toBe(1);
  });

  it('starts a new paragraph for each message, and takes a message without deltas whole', () => {
    const p = new CopilotEventParser();
    const lines = [
      '{"type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"Looking."}}',
      '{"type":"assistant.message","data":{"messageId":"m1","content":"Looking.","toolRequests":[{}]}}',
      '{"type":"assistant.message","data":{"messageId":"m2","content":"Done.","toolRequests":[]}}',
      '{"type":"brand.new_event","data":{"message":"hi"}}',
    ];
    const events = lines.flatMap((l) => p.push(l));
    expect(events.flatMap((e) => (e.type === 'delta' ? [e.text] : []))).toEqual(['Looking.', '\n\nDone.']);
    expect(p.text).toBe('Looking.\n\nDone.');
    expect(events.at(-1)).toEqual({
      type: 'activity',
      activity: expect.objectContaining({ kind: 'other', rawType: 'brand.new_event', detail: 'hi' }),
    });
  });
});

describe('Copilot usage report', () => {
  it('reads token counts from --usage-output-file', () => {
    expect(usageFromReport(JSON.parse(capture('copilot-ok.usage.json')))).toEqual({
      usage: { input_tokens: 20, output_tokens: 7, cached_input_tokens: 5, cache_write_input_tokens: 0, reasoning_output_tokens: 2 },
      models: ['mock-model'],
    });
    expect(usageFromReport(null)).toEqual({ usage: {}, models: [] });
  });
});
