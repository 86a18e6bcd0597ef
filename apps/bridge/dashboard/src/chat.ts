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
  /** MCP servers for the agent, as typed (a JSON list); empty means none. */
  mcpServers?: string;
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

const MCP_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[A-Za-z0-9-]{1,128}$/;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `value` is not a map of names (matching `name`) to strings, or undefined when it is. */
function stringMapProblem(value: unknown, name: RegExp): string | undefined {
  if (!isRecord(value)) return 'must be an object of strings';
  const bad = Object.entries(value).find(([k, v]) => !name.test(k) || typeof v !== 'string');
  return bad ? `has an invalid entry "${bad[0].slice(0, 64)}"` : undefined;
}

/** Why one entry is not a server the bridge takes (the bridge checks again), or undefined. */
function mcpEntryProblem(entry: unknown): string | undefined {
  if (!isRecord(entry)) return 'must be an object';
  const extra = Object.keys(entry).find((k) => !['name', 'command', 'args', 'env', 'url', 'headers'].includes(k));
  if (extra) return `has an unknown field "${extra.slice(0, 64)}"`;
  if (typeof entry.name !== 'string' || !MCP_NAME.test(entry.name)) return 'needs a "name" of letters, digits, _ or - (up to 64)';
  const local = entry.command !== undefined;
  if (local === (entry.url !== undefined)) return 'needs exactly one of "command" (a local server) or "url" (a remote one)';
  if (local) {
    if (typeof entry.command !== 'string' || !entry.command) return '"command" must be a non-empty string';
    if (entry.headers !== undefined) return 'a local server takes no "headers"';
    if (entry.args !== undefined && !(Array.isArray(entry.args) && entry.args.every((a) => typeof a === 'string')))
      return '"args" must be a list of strings';
    const env = entry.env === undefined ? undefined : stringMapProblem(entry.env, ENV_NAME);
    return env ? `"env" ${env}` : undefined;
  }
  if (typeof entry.url !== 'string' || !/^https?:\/\/\S+$/.test(entry.url)) return '"url" must be an http or https address';
  if (entry.args !== undefined || entry.env !== undefined) return 'a remote server takes no "args" or "env"';
  const headers = entry.headers === undefined ? undefined : stringMapProblem(entry.headers, HEADER_NAME);
  return headers ? `"headers" ${headers}` : undefined;
}

/**
 * The typed MCP servers as the request's `mcpServers`, or why they cannot be: a JSON list of
 * `{name, command, args?, env?}` or `{name, url, headers?}`, up to 16. Empty: none. Messages
 * name the entry, never a value (env and headers hold secrets).
 */
export function mcpServersOf(text: string | undefined): { value?: unknown[] } | { error: string } {
  if (!text?.trim()) return {};
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return { error: 'The MCP servers are not valid JSON.' };
  }
  if (!Array.isArray(list)) return { error: 'The MCP servers must be a JSON list: [{"name": …, "command": …} or {"name": …, "url": …}].' };
  if (list.length > 16) return { error: 'At most 16 MCP servers.' };
  for (const [i, entry] of list.entries()) {
    const problem = mcpEntryProblem(entry);
    if (problem) {
      const name = isRecord(entry) && typeof entry.name === 'string' ? ` ("${entry.name.slice(0, 64)}")` : '';
      return { error: `MCP server ${i + 1}${name} ${problem}.` };
    }
  }
  return list.length ? { value: list } : {};
}

/** `POST /chat/:toolId` or `POST /chat`, always streamed; an error message when the form is not ready. */
export function chatCall(form: ChatForm): ChatCall | { error: string } {
  const prompt = form.prompt.trim();
  const images = form.images ?? [];
  if (!prompt && images.length === 0) return { error: 'Type a prompt first.' };
  const format = responseFormatOf(form.schema);
  if ('error' in format) return format;
  const mcp = mcpServersOf(form.mcpServers);
  if ('error' in mcp) return mcp;
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
    ...(mcp.value ? { mcpServers: mcp.value } : {}),
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
