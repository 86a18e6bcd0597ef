/** The playground's requests and what it shows of their results (pure; no DOM). */

import { formatLatency, usageEntries } from './format.js';
import type { Attempt, ChatDone } from './types.js';

export interface ChatForm {
  mode: 'single' | 'fallback';
  /** The tool of a single-tool chat. */
  toolId: string;
  /** The ordered tools of a fallback chat. */
  providers: readonly string[];
  prompt: string;
  model: string;
}

export interface ChatCall {
  path: string;
  body: Record<string, unknown>;
}

/** `POST /chat/:toolId` or `POST /chat`, always streamed; an error message when the form is not ready. */
export function chatCall(form: ChatForm): ChatCall | { error: string } {
  const prompt = form.prompt.trim();
  if (!prompt) return { error: 'Type a prompt first.' };
  const base = {
    messages: [{ role: 'user', content: form.prompt }],
    stream: true,
    ...(form.model.trim() ? { model: form.model.trim() } : {}),
  };
  if (form.mode === 'single') {
    if (!form.toolId) return { error: 'Pick a tool.' };
    return { path: `/chat/${encodeURIComponent(form.toolId)}`, body: base };
  }
  if (form.providers.length === 0) return { error: 'Tick at least one tool for the fallback list.' };
  return { path: '/chat', body: { providers: [...form.providers], ...base } };
}

/** The list with the item at `index` moved by `delta` places (clamped to the ends). */
export function moveItem<T>(list: readonly T[], index: number, delta: number): T[] {
  const out = [...list];
  if (index < 0 || index >= out.length) return out;
  const target = Math.min(out.length - 1, Math.max(0, index + delta));
  const [item] = out.splice(index, 1);
  out.splice(target, 0, item as T);
  return out;
}

export interface ResultSummary {
  answer: string;
  facts: Array<[string, string]>;
  usage: Array<[string, string]>;
  attempts: Attempt[];
}

/** What the playground shows after `done` (or a plain JSON answer). */
export function summarizeDone(done: ChatDone): ResultSummary {
  const facts: Array<[string, string]> = [['Tool', done.toolId]];
  if (done.model) facts.push(['Model', done.model]);
  if (typeof done.latencyMs === 'number') facts.push(['Latency', formatLatency(done.latencyMs)]);
  if (typeof done.fallbackUsed === 'boolean') facts.push(['Fallback used', done.fallbackUsed ? 'yes' : 'no']);
  return {
    answer: done.result?.message?.content ?? '',
    facts,
    usage: usageEntries(done.result?.usage),
    attempts: Array.isArray(done.attempts) ? done.attempts : [],
  };
}

/** One attempt as a table row: tool, try, stage, outcome, reason, latency. */
export function attemptRow(a: Attempt): string[] {
  return [
    a.toolId,
    String(a.tryIndex + 1),
    a.stage,
    a.outcome,
    [a.reason, a.message].filter(Boolean).join(': ') || '–',
    typeof a.latencyMs === 'number' ? formatLatency(a.latencyMs) : '–',
  ];
}
