import type { ChatMessage } from './types.js';

/** Strip ANSI colour and cursor sequences from terminal output. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*(\u0007|\u001b\\)/g, '');
}

/** Parse one JSONL line; undefined for blank or non-JSON lines. */
export function parseJsonLine(line: string): Record<string, unknown> | undefined {
  const t = line.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(t);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Keep only integer token counts from a provider's usage object. */
export function integerUsage(raw: unknown, rename: Record<string, string> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof raw !== 'object' || raw === null) return out;
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'number' && Number.isInteger(v)) out[rename[k] ?? k] = v;
  }
  return out;
}

/**
 * Render a conversation as one prompt for agents that take a single prompt.
 * A lone user message is sent as is; otherwise each turn is labelled so the
 * agent sees who said what, ending with the turn it must answer.
 */
export function renderConversation(messages: readonly ChatMessage[], options: { includeSystem?: boolean } = {}): string {
  const includeSystem = options.includeSystem ?? true;
  const turns = messages.filter((m) => includeSystem || m.role !== 'system');
  if (turns.length === 1 && turns[0]!.role === 'user') return turns[0]!.content;
  const label = { system: 'System', user: 'User', assistant: 'Assistant' } as const;
  const body = turns.map((m) => `[${label[m.role]}]\n${m.content}`).join('\n\n');
  return `The following is a conversation. Reply as the assistant to the last user message.\n\n${body}`;
}

/**
 * A caller's value quoted for an error message, cut to `maxChars`: a message
 * names what was wrong, it does not echo a megabyte back.
 */
export function quoted(value: unknown, maxChars = 80): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > maxChars ? `${JSON.stringify(text.slice(0, maxChars))}…` : JSON.stringify(text);
}

/** The last `maxChars` characters of a text, for error messages. */
export function tail(text: string, maxChars = 2000): string {
  const t = text.trim();
  return t.length > maxChars ? '…' + t.slice(-maxChars) : t;
}
