/** Sessions as the Sessions panel lists and reads them (pure; no DOM). */

import type { ContentPart, SessionDetail, SessionSummary } from '@toolbridge/core/wire';

/** A message's text, and how many images it carried (images are not shown again, only counted). */
export function messageText(content: string | readonly ContentPart[]): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  const text = content
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('');
  return { text, images: content.filter((p) => p.type === 'image').length };
}

export type TranscriptEntry =
  | { type: 'message'; role: string; toolId?: string; at: string; text: string; images: number }
  | { type: 'change'; from: string; to: string; at: string };

/**
 * The transcript with its hand-overs in time order: a change of tool comes before the first
 * answer of the new tool (on equal times too).
 */
export function transcriptEntries(detail: Pick<SessionDetail, 'messages' | 'toolChanges'>): TranscriptEntry[] {
  const entries: Array<{ entry: TranscriptEntry; time: number; rank: number; index: number }> = [];
  detail.messages.forEach((m, index) => {
    const { text, images } = messageText(m.content);
    entries.push({
      entry: { type: 'message', role: m.role, ...(m.toolId ? { toolId: m.toolId } : {}), at: m.at, text, images },
      time: Date.parse(m.at),
      rank: 1,
      index,
    });
  });
  (detail.toolChanges ?? []).forEach((c, index) =>
    entries.push({ entry: { type: 'change', from: c.from, to: c.to, at: c.at }, time: Date.parse(c.at), rank: 0, index }),
  );
  const timeOf = (t: number) => (Number.isFinite(t) ? t : 0);
  return entries.sort((a, b) => timeOf(a.time) - timeOf(b.time) || a.rank - b.rank || a.index - b.index).map((e) => e.entry);
}

/** Most recently used first (the bridge already sends them so; a page-side sort keeps it true after a local change). */
export function byRecentUse(sessions: readonly SessionSummary[]): SessionSummary[] {
  return [...sessions].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
}

/** "1 turn", "3 turns". */
export function turnsText(turns: number): string {
  return `${turns} ${turns === 1 ? 'turn' : 'turns'}`;
}

/** A session's title, or a placeholder for one without text (an image-only first prompt). */
export function titleOf(s: Pick<SessionSummary, 'title'>): string {
  return s.title.trim() || '(no text)';
}
