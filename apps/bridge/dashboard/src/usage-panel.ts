/** The Usage section: the ledger's plots, read from GET /usage and GET /usage/windows. */

import { errorText, getJson } from './api.js';
import type { SvgNode } from './charts.js';
import { byId, el, replaceChildren } from './dom.js';
import type { UsageSummary, WindowSnapshot } from '@toolbridge/core/wire';
import { outcomesChart, recentDays, tokensChart, USAGE_DAYS, windowCharts } from './usage-view.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** SVG elements from a chart tree; every string is a text node or an attribute value, never markup. */
export function toSvg(n: SvgNode): SVGElement {
  const e = document.createElementNS(SVG_NS, n.tag);
  for (const [k, v] of Object.entries(n.attrs)) e.setAttribute(k, String(v));
  if (n.text !== undefined) e.textContent = n.text;
  for (const c of n.children ?? []) e.appendChild(toSvg(c));
  return e;
}

function legend(labels: readonly string[]): HTMLElement {
  return el('ul', { class: 'legend' }, ...labels.map((l, i) => el('li', { class: `series-${i % 6}` }, l)));
}

function figure(caption: string, svg: SvgNode, labels: readonly string[]): HTMLElement {
  const f = el('figure', { class: 'usage-chart' }, el('figcaption', {}, caption));
  f.appendChild(toSvg(svg));
  f.appendChild(legend(labels));
  return f;
}

export class UsagePanel {
  private readonly root = byId('usage');
  private readonly status = byId('usage-status');

  constructor() {
    byId('usage-reload').addEventListener('click', () => void this.load());
  }

  async load(): Promise<void> {
    this.status.textContent = 'Loading usage…';
    const now = Date.now();
    const since = new Date(now - USAGE_DAYS * 86_400_000).toISOString();
    try {
      const days = recentDays(now);
      const [byTool, windows, ...perDay] = await Promise.all([
        getJson<UsageSummary>(`/usage?since=${encodeURIComponent(since)}`),
        getJson<{ snapshots: WindowSnapshot[] }>(`/usage/windows?since=${encodeURIComponent(since)}`),
        ...days.map((d) =>
          getJson<UsageSummary>(`/usage?groupBy=tool&since=${encodeURIComponent(d.since)}&until=${encodeURIComponent(d.until)}`),
        ),
      ]);
      const figures: HTMLElement[] = [];
      for (const { toolId, svg } of windowCharts(windows.snapshots, now)) {
        const names = [...new Set(windows.snapshots.filter((s) => s.toolId === toolId).flatMap((s) => Object.keys(s.windows)))].sort();
        figures.push(figure(`${toolId}: usage windows (% used; dashed lines: resets)`, svg, names));
      }
      const tokens = tokensChart(days.map((d, i) => ({ key: d.key, groups: perDay[i]!.groups })));
      figures.push(figure('Tokens per tool per day (input + output)', tokens.svg, tokens.tools));
      figures.push(figure('Chats by outcome', outcomesChart(byTool.groups), ['succeeded', 'failed']));
      const total = byTool.groups.reduce((a, g) => a + g.chats, 0);
      const cost = byTool.groups.reduce((a, g) => a + (g.costUsd ?? 0), 0);
      replaceChildren(this.root, ...figures);
      this.status.textContent = `${total} chat${total === 1 ? '' : 's'} in the last ${USAGE_DAYS} days${cost > 0 ? ` · $${cost.toFixed(4)} reported` : ''}${
        windows.snapshots.length === 0 ? ' · no usage windows seen yet' : ''
      }`;
    } catch (e) {
      this.status.textContent = `Loading usage failed: ${errorText(e)}`;
    }
  }
}
