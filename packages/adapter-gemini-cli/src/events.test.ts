import { describe, expect, it } from '@jest/globals';
import type { StreamEvent } from '@toolbridge/core';
import { GeminiEventParser } from './events.js';
import { capture } from './testing/fake-gemini.js';

function parse(name: string) {
  const parser = new GeminiEventParser();
  const events: StreamEvent[] = capture(name)
    .split('\n')
    .flatMap((l) => parser.push(l));
  return { parser, events };
}

describe('Gemini stream-json events', () => {
  it('turns a plain answer into deltas, the session id, usage and the answering model', () => {
    const { parser, events } = parse('gemini-stdin-only.out');
    expect(events).toEqual([
      { type: 'delta', text: 'Hello ' },
      { type: 'delta', text: 'from ' },
      { type: 'delta', text: 'mock' },
    ]);
    expect(parser.text).toBe('Hello from mock');
    expect(parser.sessionId).toBe('f1fe03fd-e2fb-4c3d-abb2-5a8428d7cd61');
    expect(parser.model).toBe('gemini-2.5-flash');
    expect(parser.result).toEqual({
      status: 'success',
      usage: { input_tokens: 20, cached_input_tokens: 5, output_tokens: 7, total_tokens: 29 },
      models: ['mock-model'],
      toolCalls: 0,
    });
  });

  it('reports tool steps as activities, started then finished under one id', () => {
    const { parser, events } = parse('gemini-tools-yolo.out');
    const activities = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
    expect(activities).toEqual([
      expect.objectContaining({ kind: 'command', status: 'started', command: 'echo from-shell > shell.txt' }),
      expect.objectContaining({ kind: 'command', status: 'completed', command: 'echo from-shell > shell.txt' }),
      expect.objectContaining({ kind: 'file_change', status: 'started', changes: [{ path: 'hello.txt', kind: 'update' }] }),
      expect.objectContaining({ kind: 'file_change', status: 'completed', changes: [{ path: 'hello.txt', kind: 'update' }] }),
    ]);
    expect(activities[0]!.id).toBe(activities[1]!.id);
    expect(activities[2]!.id).toBe('write_file__write_file_1795421802029_0');
    expect(parser.text).toBe('All done.');
    expect(parser.result).toMatchObject({ status: 'success', toolCalls: 2 });
  });

  it('marks a tool Gemini did not offer as a failed step with its message', () => {
    const { events } = parse('gemini-tools-default.out');
    const failed = events.flatMap((e) => (e.type === 'activity' && e.activity.status === 'failed' ? [e.activity] : []));
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ kind: 'command', outputTail: expect.stringContaining('Tool "run_shell_command" not found') });
  });

  it('separates text before and after a tool step as paragraphs', () => {
    const parser = new GeminiEventParser();
    const lines = [
      '{"type":"message","role":"assistant","content":"Let me look.","delta":true}',
      '{"type":"tool_use","tool_name":"read_file","tool_id":"t1","parameters":{"file_path":"a.txt"}}',
      '{"type":"tool_result","tool_id":"t1","status":"success","output":"x"}',
      '{"type":"message","role":"assistant","content":"Done.","delta":true}',
    ];
    const deltas = lines.flatMap((l) => parser.push(l)).flatMap((e) => (e.type === 'delta' ? [e.text] : []));
    expect(deltas).toEqual(['Let me look.', '\n\nDone.']);
    expect(parser.text).toBe('Let me look.\n\nDone.');
  });

  it('keeps notices as `other` activities and unknown event types with their raw type', () => {
    const { parser, events } = parse('gemini-empty-response.out');
    expect(events).toEqual([
      {
        type: 'activity',
        activity: expect.objectContaining({ kind: 'other', rawType: 'error', detail: expect.stringContaining('empty response') }),
      },
    ]);
    expect(parser.result?.status).toBe('error');
    const later = new GeminiEventParser().push('{"type":"checkpoint","message":"saved"}');
    expect(later).toEqual([
      { type: 'activity', activity: expect.objectContaining({ kind: 'other', rawType: 'checkpoint', detail: 'saved' }) },
    ]);
  });

  it('never shows thoughts, and counts lines that are not events', () => {
    const { parser } = parse('gemini-thoughts.out');
    expect(parser.text).toBe('Hello world');
    const p = new GeminiEventParser();
    p.push('Warning: something');
    expect(p.nonJsonLines).toBe(1);
  });
});
