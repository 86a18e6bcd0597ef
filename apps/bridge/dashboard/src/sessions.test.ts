import { describe, expect, it } from '@jest/globals';
import { byRecentUse, messageText, titleOf, transcriptEntries, turnsText } from './sessions.js';

describe('transcriptEntries', () => {
  it('puts a hand-over before the first answer of the new tool, in time order', () => {
    const entries = transcriptEntries({
      messages: [
        { role: 'user', content: 'one', at: '2026-01-01T10:00:00.000Z' },
        { role: 'assistant', content: 'A', toolId: 'codex', at: '2026-01-01T10:00:01.000Z' },
        { role: 'user', content: 'two', at: '2026-01-01T10:01:00.000Z' },
        { role: 'assistant', content: 'B', toolId: 'claude-code', at: '2026-01-01T10:01:01.000Z' },
      ],
      toolChanges: [{ from: 'codex', to: 'claude-code', at: '2026-01-01T10:01:01.000Z' }],
    });
    expect(entries.map((e) => (e.type === 'change' ? `${e.from}->${e.to}` : `${e.role}:${e.text}`))).toEqual([
      'user:one',
      'assistant:A',
      'user:two',
      'codex->claude-code',
      'assistant:B',
    ]);
  });

  it('reads text parts and counts images', () => {
    expect(
      messageText([
        { type: 'text', text: 'look' },
        { type: 'image', data: 'AA==', mediaType: 'image/png' },
      ]),
    ).toEqual({
      text: 'look',
      images: 1,
    });
    expect(messageText('plain')).toEqual({ text: 'plain', images: 0 });
  });
});

describe('session list helpers', () => {
  it('sorts by last use, counts turns, names untitled sessions', () => {
    const s = (id: string, updatedAt: string) => ({ id, toolId: 't', createdAt: updatedAt, updatedAt, turns: 1, title: '' });
    expect(byRecentUse([s('a', '2026-01-01T00:00:00Z'), s('b', '2026-01-02T00:00:00Z')]).map((x) => x.id)).toEqual(['b', 'a']);
    expect([turnsText(1), turnsText(2)]).toEqual(['1 turn', '2 turns']);
    expect(titleOf({ title: '  ' })).toBe('(no text)');
  });
});
