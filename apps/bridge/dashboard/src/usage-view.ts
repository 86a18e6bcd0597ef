/**
 * What the Usage section plots, from what the bridge answered (no DOM, tested beside it): each
 * tool's windows over time with their resets, tokens per tool per day, chats by outcome.
 */

import { lineChart, stackedBars, type Series, type SvgNode } from './charts.js';
import type { UsageGroup, WindowSnapshot } from '@toolbridge/core/wire';

export const USAGE_DAYS = 7;
const DAY_MS = 86_400_000;

/** The last `USAGE_DAYS` UTC days, oldest first, as `YYYY-MM-DD` with their bounds. */
export function recentDays(now: number): Array<{ key: string; since: string; until: string }> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: USAGE_DAYS }, (_, i) => {
    const start = today - (USAGE_DAYS - 1 - i) * DAY_MS;
    return {
      key: new Date(start).toISOString().slice(0, 10),
      since: new Date(start).toISOString(),
      until: new Date(start + DAY_MS - 1).toISOString(),
    };
  });
}

/** One chart per tool: a line per window (used %), a marker at each reset seen. */
export function windowCharts(snapshots: readonly WindowSnapshot[], now: number): Array<{ toolId: string; svg: SvgNode }> {
  const xMin = now - USAGE_DAYS * DAY_MS;
  const byTool = new Map<string, WindowSnapshot[]>();
  for (const s of snapshots) byTool.set(s.toolId, [...(byTool.get(s.toolId) ?? []), s]);
  return [...byTool].map(([toolId, list]) => {
    const names = [...new Set(list.flatMap((s) => Object.keys(s.windows)))].sort();
    const series: Series[] = names.map((name) => ({
      label: name,
      points: list.filter((s) => s.windows[name]).map((s) => ({ x: Date.parse(s.at), y: s.windows[name]!.usedPercentage })),
    }));
    const resets = new Map<string, string>();
    for (const s of list) for (const [name, w] of Object.entries(s.windows)) if (w.resetsAt) resets.set(`${name}@${w.resetsAt}`, name);
    const markers = [...resets].map(([key, name]) => ({
      x: Date.parse(key.slice(name.length + 1)),
      label: `${name} resets ${key.slice(name.length + 1)}`,
    }));
    const xMax = Math.max(now, ...markers.map((m) => m.x).filter((x) => x <= now + DAY_MS));
    return { toolId, svg: lineChart({ label: `${toolId} usage windows, % used`, series, xMin, xMax, yMax: 100, markers }) };
  });
}

/** Input + output tokens per tool per day, stacked by tool. */
export function tokensChart(days: ReadonlyArray<{ key: string; groups: readonly UsageGroup[] }>): { svg: SvgNode; tools: string[] } {
  const tools = [...new Set(days.flatMap((d) => d.groups.map((g) => g.key)))].sort();
  const groups = days.map((d) => ({
    label: d.key.slice(5),
    values: tools.map((t) => {
      const g = d.groups.find((x) => x.key === t);
      return g ? g.inputTokens + g.outputTokens : 0;
    }),
  }));
  return { svg: stackedBars({ label: 'Tokens per tool per day', groups, keys: tools }), tools };
}

/** Chats per tool, succeeded and failed. */
export function outcomesChart(groups: readonly UsageGroup[]): SvgNode {
  return stackedBars({
    label: 'Chats by outcome',
    keys: ['succeeded', 'failed'],
    groups: groups.map((g) => ({ label: g.key, values: [g.succeeded, g.failed] })),
  });
}
