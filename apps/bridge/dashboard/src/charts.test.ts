import { describe, expect, it } from '@jest/globals';
import { compact, lineChart, niceMax, stackedBars, type SvgNode } from './charts.js';

const all = (n: SvgNode): SvgNode[] => [n, ...(n.children ?? []).flatMap(all)];

describe('charts', () => {
  it('draws each series as a polyline in the plot, and reset markers inside the period only', () => {
    const svg = lineChart({
      label: 'Codex windows',
      series: [
        {
          label: 'five_hour',
          points: [
            { x: 0, y: 0 },
            { x: 50, y: 100 },
            { x: 100, y: 50 },
          ],
        },
        { label: 'weekly', points: [{ x: 10, y: 20 }] },
      ],
      xMin: 0,
      xMax: 100,
      yMax: 100,
      markers: [
        { x: 60, label: 'five_hour resets' },
        { x: 200, label: 'outside' },
      ],
      width: 140,
      height: 140,
    });
    expect(svg.attrs).toMatchObject({ role: 'img', 'aria-label': 'Codex windows', viewBox: '0 0 140 140' });
    const poly = all(svg).find((n) => n.tag === 'polyline')!;
    // x: 40..128 over 0..100; y: 112 (0 %) .. 12 (100 %)
    expect(poly.attrs.points).toBe('40,112 84,12 128,62');
    expect(all(svg).filter((n) => n.tag === 'circle')).toHaveLength(1);
    const markers = all(svg).filter((n) => n.attrs.class === 'marker');
    expect(markers).toHaveLength(1);
    expect(markers[0]!.attrs.x1).toBe(92.8);
  });

  it('stacks bars by key with a title per segment, scaled to a round maximum', () => {
    const svg = stackedBars({
      label: 'Chats by outcome',
      keys: ['succeeded', 'failed'],
      groups: [
        { label: 'codex', values: [3, 1] },
        { label: 'ollama', values: [0, 2] },
      ],
    });
    const rects = all(svg).filter((n) => n.tag === 'rect');
    expect(rects.map((r) => r.children![0]!.text)).toEqual(['codex · succeeded: 3', 'codex · failed: 1', 'ollama · failed: 2']);
    expect(rects.map((r) => r.attrs.class)).toEqual(['series-0', 'series-1', 'series-1']);
    const [a, b] = rects;
    expect(Number(a!.attrs.y)).toBeGreaterThan(Number(b!.attrs.y)); // the second segment sits on top
  });

  it('round axis maxima and compact numbers', () => {
    expect([0, 3, 7, 12, 180, 1001].map(niceMax)).toEqual([1, 5, 10, 20, 200, 2000]);
    expect([2.5, 12, 1234, 2_500_000].map(compact)).toEqual(['2.5', '12', '1.2k', '2.5M']);
  });
});
