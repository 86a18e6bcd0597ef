import type { ToolMessage } from '@toolbridge/core';

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

/** The text of a message; each image is a placeholder the prompt can refer to (`[image 1: image/png]`). */
export function messageText(message: ToolMessage, imageNumber: { n: number } = { n: 0 }): string {
  return message.content.map((p) => (p.type === 'text' ? p.text : `[image ${++imageNumber.n}: ${p.mediaType}]`)).join('');
}

/**
 * Render a conversation as one prompt for agents that take a single prompt. A lone user message
 * is sent as is; otherwise each turn is labelled so the agent sees who said what, ending with the
 * turn it must answer. Images appear as numbered placeholders, in the order of `imagesOf()`.
 */
export function renderConversation(messages: readonly ToolMessage[], options: { includeSystem?: boolean } = {}): string {
  const includeSystem = options.includeSystem ?? true;
  const turns = messages.filter((m) => includeSystem || m.role !== 'system');
  const counter = { n: 0 };
  if (turns.length === 1 && turns[0]!.role === 'user') return messageText(turns[0]!, counter);
  const label = { system: 'System', user: 'User', assistant: 'Assistant' } as const;
  const body = turns.map((m) => `[${label[m.role]}]\n${messageText(m, counter)}`).join('\n\n');
  return `The following is a conversation. Reply as the assistant to the last user message.\n\n${body}`;
}

/** The system messages' text, joined (for tools that take a system prompt apart). */
export function systemText(messages: readonly ToolMessage[]): string {
  return messages
    .filter((m) => m.role === 'system')
    .map((m) => messageText(m))
    .join('\n\n');
}

/** The images of a conversation, in order (matching the placeholders of `renderConversation`). */
export function imagesOf(messages: readonly ToolMessage[], options: { includeSystem?: boolean } = {}) {
  return messages
    .filter((m) => options.includeSystem !== false || m.role !== 'system')
    .flatMap((m) => m.content.filter((p) => p.type === 'image'));
}
