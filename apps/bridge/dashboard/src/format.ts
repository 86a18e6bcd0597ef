/** Text for durations, times, percentages and usage windows (pure; no DOM). */

const MINUTE = 60_000;

/** "2 h 10 min", "45 min", "3 d 4 h", "less than a minute". Rounded to the minute: a countdown, not a stopwatch. */
export function formatDuration(ms: number): string {
  const minutes = Math.round(Math.max(0, ms) / MINUTE);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 24 * 60) {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const hours = Math.round(minutes / 60);
  const d = Math.floor(hours / 24);
  const h = hours % 24;
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** "resets in 2 h 10 min"; undefined without a valid time. */
export function resetsInText(resetsAt: string | undefined, now: number): string | undefined {
  const at = resetsAt ? Date.parse(resetsAt) : NaN;
  if (!Number.isFinite(at)) return undefined;
  return at <= now ? 'reset time has passed' : `resets in ${formatDuration(at - now)}`;
}

export interface TimeFormatOptions {
  /** BCP 47 locale; default the browser's. */
  locale?: string;
  /** IANA zone; default the browser's (the user's local time). */
  timeZone?: string;
}

function dayKey(date: Date, options: TimeFormatOptions): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: options.timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

/** A reset time in the user's zone: the time alone when it is today, else with the day ("Sat 22 Nov, 14:30"). */
export function formatLocalTime(iso: string, now: number, options: TimeFormatOptions = {}): string | undefined {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return undefined;
  const date = new Date(at);
  const time: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', timeZone: options.timeZone };
  if (dayKey(date, options) === dayKey(new Date(now), options)) return new Intl.DateTimeFormat(options.locale, time).format(date);
  return new Intl.DateTimeFormat(options.locale, { ...time, weekday: 'short', day: 'numeric', month: 'short' }).format(date);
}

const WINDOW_NAMES: Record<string, string> = {
  five_hour: '5-hour window',
  seven_day: '7-day window',
  // Copilot CLI's plan allowance: a count of requests until the plan's reset date, not a rolling window.
  premium_requests: 'premium requests',
};

/** `five_hour` → "5-hour window", `2_hour` → "2-hour window", `primary` → "primary window". */
export function windowLabel(name: string): string {
  if (WINDOW_NAMES[name]) return WINDOW_NAMES[name]!;
  const m = /^(\d+)_(minute|hour|day)$/.exec(name);
  if (m) return `${m[1]}-${m[2]} window`;
  return `${name.replace(/_/g, ' ')} window`;
}

/** 0–100, whatever the input. */
export function clampPercent(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

/** "42.5%", "7%": at most one decimal. */
export function formatPercent(value: number): string {
  return `${Math.round(clampPercent(value) * 10) / 10}%`;
}

/** Colour band of a usage bar: most of a window left, getting close, nearly used up. */
export function usageLevel(usedPercentage: number): 'low' | 'medium' | 'high' {
  const used = clampPercent(usedPercentage);
  if (used >= 90) return 'high';
  if (used >= 70) return 'medium';
  return 'low';
}

/** "812 ms", "1.2 s", "2 min 5 s". */
export function formatLatency(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** "2.4 MB", "812 KB", "96 B". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(Math.round((bytes / (1024 * 1024)) * 10) / 10).toString()} MB`;
  return `${(Math.round((bytes / (1024 * 1024 * 1024)) * 10) / 10).toString()} GB`;
}

/** "12 s", "3 min": how long ago something was checked. */
export function formatAge(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  return formatDuration(ms);
}

/** Token counts as label/value pairs: `input_tokens` → "input", integers grouped ("1,234"). */
export function usageEntries(usage: Record<string, unknown> | undefined, locale?: string): Array<[string, string]> {
  if (!usage) return [];
  const number = new Intl.NumberFormat(locale ?? 'en');
  return Object.entries(usage)
    .filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]))
    .map(([key, value]) => [key.replace(/_tokens$/, '').replace(/_/g, ' '), number.format(value)]);
}

/** Text with `backtick` spans split out, so commands in messages can be shown as code (an unpaired backtick stays text). */
export function splitCode(text: string): Array<{ code: boolean; text: string }> {
  const parts: Array<{ code: boolean; text: string }> = [];
  const re = /`([^`\n]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) parts.push({ code: false, text: text.slice(last, m.index) });
    parts.push({ code: true, text: m[1]! });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ code: false, text: text.slice(last) });
  return parts;
}

/** Text with its http(s) URLs split out, so they can become links (trailing punctuation stays text). */
export function splitUrls(text: string): Array<{ url?: string; text: string }> {
  const parts: Array<{ url?: string; text: string }> = [];
  const re = /https?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:!?)\]]/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ url: m[0], text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** A long URL (an OAuth link is hundreds of characters) as host and path: "auth.openai.com/oauth/authorize…". */
export function shortUrl(url: string, max = 48): string {
  let shown: string;
  try {
    const u = new URL(url);
    shown = u.host + (u.pathname === '/' ? '' : u.pathname);
    if (u.search || u.hash) shown += '…';
  } catch {
    shown = url;
  }
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}
