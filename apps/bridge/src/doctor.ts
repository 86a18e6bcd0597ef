import type { HealthRecord, Tool, UsageLimits, UsageSummary, WindowSnapshot } from '@toolbridge/core';

function pad(cells: string[][]): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function resetText(iso: string | undefined, now: Date): string {
  if (!iso) return '';
  const ms = Date.parse(iso) - now.getTime();
  if (!Number.isFinite(ms)) return '';
  if (ms <= 0) return ', reset due';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `, resets in ${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `, resets in ${hours}h${String(minutes % 60).padStart(2, '0')}m` : `, resets in ${Math.round(hours / 24)}d`;
}

export function usageText(limits: UsageLimits | undefined, now = new Date()): string {
  if (!limits) return '-';
  if (limits.status !== 'available' || !limits.windows || Object.keys(limits.windows).length === 0)
    return limits.reason ? `unknown (${limits.reason})` : 'unknown';
  const windows = Object.entries(limits.windows).map(
    ([name, w]) => `${name} ${Math.round(w.usedPercentage)}% used${resetText(w.resetsAt, now)}`,
  );
  return (limits.plan ? `${limits.plan}: ` : '') + windows.join('; ');
}

function authText(h: HealthRecord | undefined): string {
  if (!h) return '?';
  if (!h.authSupported) return 'not needed';
  switch (h.authStatus) {
    case 'authenticated':
      return h.authMethod && h.authMethod !== 'none' ? `logged in (${h.authMethod})` : 'logged in';
    case 'unauthenticated':
      return 'NOT logged in';
    default:
      return h.available ? 'unknown' : '-';
  }
}

/** A readable table of the tools: installed, version, auth, usage windows; then the reasons of the unavailable ones. */
export function formatDoctor(tools: readonly Tool[], health: readonly HealthRecord[], now = new Date()): string {
  const byId = new Map(health.map((h) => [h.toolId, h]));
  const rows = [['TOOL', 'INSTALLED', 'VERSION', 'AUTH', 'USAGE']];
  const notes: string[] = [];
  for (const t of tools) {
    const h = byId.get(t.id);
    const available = h ? h.available : t.available;
    rows.push([t.id, available ? 'yes' : 'no', t.version ?? h?.version ?? '-', authText(h), usageText(h?.usageLimits, now)]);
    const reason = h?.reason ?? t.reason;
    if (reason && (!available || h?.authStatus === 'unauthenticated')) notes.push(`  ${t.id}: ${reason}`);
  }
  return pad(rows) + (notes.length ? `\n\nNotes:\n${notes.join('\n')}` : '') + '\n';
}

/** Snapshots of each tool's windows shown in text (the newest). */
const WINDOW_LINES = 5;

/**
 * The dashboard's Usage plots in text: chats and tokens per tool over the period, tokens per tool
 * per day, and each tool's latest window snapshots with their resets.
 */
export function formatUsage(
  byTool: UsageSummary,
  byDay: ReadonlyArray<{ day: string; summary: UsageSummary }>,
  snapshots: readonly WindowSnapshot[],
  now = new Date(),
): string {
  const out = [`Usage since ${byTool.since.slice(0, 10)}:`];
  if (byTool.groups.length === 0) out.push('  no chats recorded');
  else {
    const rows = [['  TOOL', 'CHATS', 'OK', 'FAILED', 'INPUT', 'OUTPUT', 'CACHED', 'COST']];
    for (const g of byTool.groups) {
      rows.push([
        `  ${g.key}`,
        String(g.chats),
        String(g.succeeded),
        String(g.failed),
        String(g.inputTokens),
        String(g.outputTokens),
        String(g.cachedInputTokens),
        g.costUsd !== undefined ? `$${g.costUsd.toFixed(4)}` : '-',
      ]);
    }
    out.push(pad(rows));
    out.push('', 'Tokens per day (input + output):');
    for (const { day, summary } of byDay) {
      const parts = summary.groups.map((g) => `${g.key} ${g.inputTokens + g.outputTokens}`);
      out.push(`  ${day}  ${parts.length ? parts.join(', ') : '-'}`);
    }
  }
  const tools = [...new Set(snapshots.map((s) => s.toolId))];
  if (tools.length) out.push('', 'Usage windows over time:');
  for (const toolId of tools) {
    out.push(`  ${toolId}`);
    for (const snap of snapshots.filter((s) => s.toolId === toolId).slice(-WINDOW_LINES)) {
      out.push(`    ${snap.at.slice(0, 16).replace('T', ' ')}  ${usageText({ status: 'available', windows: snap.windows }, now)}`);
    }
  }
  return out.join('\n') + '\n';
}
