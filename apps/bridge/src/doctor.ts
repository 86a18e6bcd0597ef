import type { HealthRecord, Tool, UsageLimits } from '@toolbridge/core';

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
