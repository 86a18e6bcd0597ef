/** The playground's requests and what it shows of their results (pure; no DOM). */

import { formatLatency, usageEntries } from './format.js';
import type { Attempt, ChatResponse, FallbackChatResponse, ImagePart } from '@toolbridge/core/wire';

/** The answer of `POST /chat/:toolId`, or of `POST /chat` (which adds the fallback's attempts and route). */
export type ChatDone = ChatResponse & Partial<Pick<FallbackChatResponse, 'fallbackUsed' | 'attempts' | 'route'>>;

export const PERMISSION_LEVELS = ['read-only', 'workspace-write', 'full'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

export interface ChatForm {
  mode: 'single' | 'fallback';
  /** The tool of a single-tool chat. */
  toolId: string;
  /** The ordered tools of a fallback chat. */
  providers: readonly string[];
  prompt: string;
  model: string;
  /** What an agent may do; sent as chosen (the page shows read-only first). */
  permissions?: PermissionLevel;
  /** Working folder for agents (optional). */
  cwd?: string;
  /** A JSON Schema as typed; empty means a plain-text answer. */
  schema?: string;
  images?: readonly ImagePart[];
  /** Continue (or fork) this session: only the new message is sent. */
  session?: { id: string; fork: boolean };
  /** Ask before each action the level allows (`approvals: "ask"`). */
  approvals?: boolean;
}

export interface ChatCall {
  path: string;
  body: Record<string, unknown>;
}

/** The typed schema as a `responseFormat`, or why it cannot be one. Empty: none. */
export function responseFormatOf(text: string | undefined): { value?: Record<string, unknown> } | { error: string } {
  if (!text?.trim()) return {};
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    return { error: `The JSON schema is not valid JSON (${e instanceof Error ? e.message : String(e)}).` };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { error: 'The JSON schema must be a JSON object.' };
  return { value: { type: 'json_schema', schema } };
}

/** `POST /chat/:toolId` or `POST /chat`, always streamed; an error message when the form is not ready. */
export function chatCall(form: ChatForm): ChatCall | { error: string } {
  const prompt = form.prompt.trim();
  const images = form.images ?? [];
  if (!prompt && images.length === 0) return { error: 'Type a prompt first.' };
  const format = responseFormatOf(form.schema);
  if ('error' in format) return format;
  const content = images.length ? [...(prompt ? [{ type: 'text', text: form.prompt }] : []), ...images] : form.prompt;
  const base = {
    messages: [{ role: 'user', content }],
    stream: true,
    ...(form.model.trim() ? { model: form.model.trim() } : {}),
    ...(form.permissions ? { permissions: form.permissions } : {}),
    ...(form.cwd?.trim() ? { cwd: form.cwd.trim() } : {}),
    ...(format.value ? { responseFormat: format.value } : {}),
    ...(form.session ? { sessionId: form.session.id, ...(form.session.fork ? { fork: true } : {}) } : {}),
    ...(form.approvals ? { approvals: 'ask' } : {}),
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
  /** The parsed JSON answer, pretty-printed, when a schema was asked for. */
  object?: string;
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
  facts.push(...metadataFacts(done.result?.metadata));
  if (done.sessionId) facts.push(['Session', done.sessionId]);
  const hasObject = done.result !== undefined && 'object' in done.result && done.result.object !== undefined;
  return {
    answer: done.result?.message?.content ?? '',
    ...(hasObject ? { object: JSON.stringify(done.result!.object, null, 2) } : {}),
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

/**
 * Transport and permissions from the result's metadata, where the tool says them. Adapters spell
 * the permission report `{ requested, applied, note }` or `{ level, source }`; both read here.
 */
export function metadataFacts(metadata: Record<string, unknown> | undefined): Array<[string, string]> {
  const facts: Array<[string, string]> = [];
  if (!metadata) return facts;
  if (typeof metadata.transport === 'string') facts.push(['Transport', metadata.transport]);
  const p = metadata.permissions;
  if (typeof p === 'string') facts.push(['Permissions', p]);
  else if (p && typeof p === 'object') {
    const r = p as Record<string, unknown>;
    const applied = typeof r.applied === 'string' ? r.applied : typeof r.level === 'string' ? r.level : undefined;
    const requested = typeof r.requested === 'string' ? r.requested : undefined;
    if (applied) facts.push(['Permissions', requested && requested !== applied ? `${applied} (asked: ${requested})` : applied]);
    if (typeof r.note === 'string' && r.note) facts.push(['Permissions note', r.note]);
  }
  return facts;
}
