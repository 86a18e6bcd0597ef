/**
 * Small SVG charts for the Usage section, drawn here (no charting library, nothing loaded from
 * anywhere): each function returns a plain tree that `usage-panel.ts` turns into SVG elements, so
 * the geometry is tested without a browser. Colours come from CSS classes (`series-N`).
 */

export interface SvgNode {
  tag: 'svg' | 'g' | 'line' | 'polyline' | 'rect' | 'text' | 'title' | 'circle';
  attrs: Record<string, string | number>;
  children?: SvgNode[];
  text?: string;
}

export interface Series {
  label: string;
  points: ReadonlyArray<{ x: number; y: number }>;
}

const PAD = { left: 40, right: 12, top: 12, bottom: 28 };
const round = (n: number) => Math.round(n * 10) / 10;
const node = (tag: SvgNode['tag'], attrs: SvgNode['attrs'], ...children: SvgNode[]): SvgNode => ({ tag, attrs, children });
const text = (attrs: SvgNode['attrs'], value: string): SvgNode => ({ tag: 'text', attrs, text: value });
const title = (value: string): SvgNode => ({ tag: 'title', attrs: {}, text: value });

function frame(width: number, height: number, label: string, yMax: number, yFormat: (n: number) => string): SvgNode[] {
  const plotH = height - PAD.top - PAD.bottom;
  const ticks = [0, 0.5, 1].map((f) => {
    const y = round(PAD.top + plotH * (1 - f));
    return node(
      'g',
      { class: 'tick' },
      node('line', { x1: PAD.left, x2: width - PAD.right, y1: y, y2: y, class: 'grid' }),
      text({ x: PAD.left - 4, y: y + 4, 'text-anchor': 'end', class: 'axis-label' }, yFormat(yMax * f)),
    );
  });
  return [title(label), ...ticks];
}

/**
 * Lines over time (x: epoch ms, y: 0..yMax), with dashed vertical markers (a window's reset).
 * Each series is a `polyline` with class `series-N` and a `<title>` naming it.
 */
export function lineChart(o: {
  label: string;
  series: readonly Series[];
  xMin: number;
  xMax: number;
  yMax: number;
  markers?: ReadonlyArray<{ x: number; label: string }>;
  width?: number;
  height?: number;
  yFormat?: (n: number) => string;
  xFormat?: (x: number) => string;
}): SvgNode {
  const width = o.width ?? 480;
  const height = o.height ?? 180;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const span = Math.max(1, o.xMax - o.xMin);
  const sx = (x: number) => round(PAD.left + (plotW * (Math.min(Math.max(x, o.xMin), o.xMax) - o.xMin)) / span);
  const sy = (y: number) => round(PAD.top + plotH * (1 - Math.min(Math.max(y, 0), o.yMax) / (o.yMax || 1)));
  const lines = o.series.map((s, i) =>
    node(
      'g',
      { class: `series series-${i % 6}`, 'data-label': s.label },
      title(s.label),
      s.points.length === 1
        ? node('circle', { cx: sx(s.points[0]!.x), cy: sy(s.points[0]!.y), r: 3 })
        : node('polyline', { points: s.points.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' '), fill: 'none' }),
    ),
  );
  const markers = (o.markers ?? [])
    .filter((m) => m.x >= o.xMin && m.x <= o.xMax)
    .map((m) => node('line', { x1: sx(m.x), x2: sx(m.x), y1: PAD.top, y2: PAD.top + plotH, class: 'marker' }, title(m.label)));
  const xf = o.xFormat ?? ((x: number) => new Date(x).toISOString().slice(5, 10));
  const xLabels = [o.xMin, o.xMax].map((x, i) =>
    text({ x: sx(x), y: height - 8, 'text-anchor': i === 0 ? 'start' : 'end', class: 'axis-label' }, xf(x)),
  );
  return node(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': o.label, class: 'chart' },
    ...frame(width, height, o.label, o.yMax, o.yFormat ?? ((n) => `${Math.round(n)}%`)),
    ...markers,
    ...lines,
    ...xLabels,
  );
}

/** Stacked bars: one per group, one segment per key (class `series-N`), each with a `<title>` "group · key: value". */
export function stackedBars(o: {
  label: string;
  groups: ReadonlyArray<{ label: string; values: readonly number[] }>;
  keys: readonly string[];
  width?: number;
  height?: number;
}): SvgNode {
  const width = o.width ?? 480;
  const height = o.height ?? 180;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const totals = o.groups.map((g) => g.values.reduce((a, v) => a + v, 0));
  const yMax = niceMax(Math.max(0, ...totals));
  const slot = plotW / Math.max(1, o.groups.length);
  const barW = round(Math.min(48, slot * 0.7));
  const bars = o.groups.map((g, gi) => {
    const x = round(PAD.left + slot * gi + (slot - barW) / 2);
    let base = 0;
    const segments = g.values.flatMap((v, ki) => {
      if (v <= 0) return [];
      const h = round((plotH * v) / yMax);
      const y = round(PAD.top + plotH - ((base + v) / yMax) * plotH);
      base += v;
      return [
        node('rect', { x, y, width: barW, height: Math.max(h, 0.5), class: `series-${ki % 6}` }, title(`${g.label} · ${o.keys[ki]}: ${v}`)),
      ];
    });
    return node(
      'g',
      { class: 'bar', 'data-label': g.label },
      ...segments,
      text({ x: round(x + barW / 2), y: height - 8, 'text-anchor': 'middle', class: 'axis-label' }, g.label),
    );
  });
  return node(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': o.label, class: 'chart' },
    ...frame(width, height, o.label, yMax, compact),
    ...bars,
  );
}

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten. */
export function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= n) ?? 10 * p;
}

/** 2.5 → "2.5", 1234 → "1.2k", 2500000 → "2.5M". */
export function compact(n: number): string {
  if (n >= 1e6) return `${round(n / 1e6)}M`;
  if (n >= 1e3) return `${round(n / 1e3)}k`;
  return String(round(n));
}
