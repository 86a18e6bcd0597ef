import type { ToolAdapter, ToolRequest } from '../adapter.js';
import { InvalidRequestError } from '../errors.js';
import { directory, type ValidChatRequest } from '../request.js';
import type { ToolMessage, TranscriptMessage } from '../types.js';
import { newSessionId, type SessionRecord, type SessionStore } from './store.js';

/** A session held for a turn or a whole fallback chat (`session_busy` for anyone else meanwhile). */
export interface SessionLease {
  readonly sessionId: string;
  /** The tool the session belonged to when it was locked. */
  readonly toolId: string;
  release(): void;
}

/** How one turn runs, decided from the request and the session it continues (if any). */
export interface TurnPlan {
  /** The session this turn is written to: the continued one, a fork of it, or a new one. */
  sessionId: string;
  /** The record to update; undefined for a new session. */
  base?: SessionRecord;
  /** The transcript so far (of the continued or forked session). */
  transcript: TranscriptMessage[];
  /** What the adapter is sent. */
  request: ToolRequest;
  cwd: string;
  /** The session moves to this tool from another (hand-over). */
  handoverFrom?: string;
  forkedFrom?: string;
  isNew: boolean;
  release(): void;
}

/** A transcript message as an adapter takes it. */
export function toToolMessage(m: TranscriptMessage): ToolMessage {
  if (typeof m.content === 'string') return { role: m.role, content: [{ type: 'text', text: m.content }] };
  return {
    role: m.role,
    content: m.content.map((p) =>
      p.type === 'text'
        ? { type: 'text' as const, text: p.text }
        : { type: 'image' as const, mediaType: p.mediaType!, data: p.data!, bytes: Math.floor((p.data!.length * 3) / 4) },
    ),
  };
}

/**
 * Plan a turn. Without `sessionId`: a fresh conversation in a new session. With it: the tool's
 * native session continues when the session is that tool's and the adapter can resume (only the
 * new messages are sent); otherwise (Ollama, a hand-over to another tool, a fork the tool cannot
 * do natively) the tool is sent the transcript so far, then the new messages.
 */
/** What of a valid chat request an adapter is sent besides the messages (and `resume`, which the session plan decides). */
export function toolRequestSettings(req: ValidChatRequest): Omit<ToolRequest, 'messages'> {
  return {
    ...(req.model !== undefined ? { model: req.model } : {}),
    ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.permissions !== undefined ? { permissions: req.permissions } : {}),
    additionalDirs: req.additionalDirs,
    ...(req.structured ? { responseFormat: req.structured.format } : {}),
    ...(req.mcpServers ? { mcpServers: req.mcpServers } : {}),
  };
}

export async function planTurn(store: SessionStore, adapter: ToolAdapter, req: ValidChatRequest, lease?: SessionLease): Promise<TurnPlan> {
  const base = toolRequestSettings(req);
  if (req.sessionId === undefined) {
    const id = newSessionId();
    const cwd = req.cwd ?? (await store.workDir(id));
    store.prepareNew(id);
    return { sessionId: id, transcript: [], request: { ...base, messages: req.messages }, cwd, isNew: true, release: () => undefined };
  }

  const record = await store.get(req.sessionId);
  if (lease && lease.sessionId !== req.sessionId) throw new InvalidRequestError('a session lease was given for another session');
  const release = lease ? () => undefined : store.lock(req.sessionId);
  try {
    const transcript = await store.transcript(req.sessionId);
    const sameTool = record.toolId === adapter.id;
    const native = sameTool && record.native?.toolId === adapter.id && adapter.features.sessions?.resume ? record.native : undefined;
    const nativeFork = req.fork && native !== undefined && adapter.features.sessions?.fork === true;
    // The directory a session was working in may be gone since (removed by its owner): say so, as
    // for a caller's cwd. Looked at only when the caller gives no cwd of its own.
    const sessionCwd =
      req.cwd ??
      (record.cwd
        ? await directory(record.cwd, `the working directory of session ${record.id}`, 'library')
        : await store.workDir(record.id));
    // A turn that names no model follows the tool's own default (or its routing, as Gemini's `auto`):
    // the session's `model` records what answered last, which is no choice of the caller's.
    const model = req.model;
    const request: ToolRequest =
      native && (!req.fork || nativeFork)
        ? { ...base, ...(model ? { model } : {}), messages: req.messages, resume: { nativeSessionId: native.sessionId, fork: req.fork } }
        : { ...base, ...(model ? { model } : {}), messages: [...transcript.map(toToolMessage), ...req.messages] };
    if (!req.fork) {
      return {
        sessionId: record.id,
        base: record,
        transcript,
        request,
        cwd: sessionCwd,
        ...(sameTool ? {} : { handoverFrom: record.toolId }),
        isNew: false,
        release,
      };
    }
    const id = newSessionId();
    // A native fork must run where the tool's session lives; otherwise the fork gets a private directory of its own.
    const cwd = record.cwd || nativeFork ? sessionCwd : (req.cwd ?? (await store.workDir(id)));
    store.prepareNew(id);
    return {
      sessionId: id,
      base: { ...record, id, forkedFrom: record.id, native: undefined, turns: record.turns, toolChanges: [...record.toolChanges] },
      transcript,
      request,
      cwd,
      forkedFrom: record.id,
      ...(sameTool ? {} : { handoverFrom: record.toolId }),
      isNew: true,
      release,
    };
  } catch (e) {
    release();
    throw e;
  }
}
