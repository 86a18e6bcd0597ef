import { classifyFailure, imagesOf, renderConversation } from '@toolbridge/adapter-kit';
import {
  InvalidRequestError,
  ProviderExecutionError,
  type ChatContext,
  type StreamEvent,
  type ToolbridgeError,
  type ToolRequest,
} from '@toolbridge/core';
import { ActivityTracker } from './activity.js';
import { TOOL_ID } from './config.js';
import { RunAccumulator } from './events.js';
import { classifyError, errorInfoOf, OPENCODE_FAILURES } from './failures.js';
import { opencodePermissions, sessionRules } from './permissions.js';
import { decidePermission } from './warm-approvals.js';
import { ServeHttpError, type ServeEvent } from './warm-client.js';
import type { OpenCodeServer } from './warm-process.js';
import { SESSION_TITLE, userWantsTitles } from './titles.js';
import type { TurnInputs } from './turn-inputs.js';

type Json = Record<string, unknown>;

/** Bound on the session calls (create, fork, update, prompt: 20–80 ms measured) and on the abort after an early end. */
const CALL_TIMEOUT_MS = 30_000;
const ABORT_TIMEOUT_MS = 3_000;
/** Text parts of one answer are separate paragraphs, as on the spawn path. */
const PART_SEPARATOR = '\n\n';

const rec = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** What the model is sent: the conversation as text (as `opencode run` gets it), images as data-URL file parts. */
function promptParts(request: ToolRequest): Json[] {
  const text = renderConversation(request.messages);
  const images = imagesOf(request.messages).map((i, n) => ({
    type: 'file',
    mime: i.mediaType,
    filename: `image-${n + 1}`,
    url: `data:${i.mediaType};base64,${i.data}`,
  }));
  return [{ type: 'text', text }, ...images];
}

/** `provider/model` as serve's `{providerID, modelID}` (the model id may hold more slashes). */
function modelRef(model: string | undefined): Json | undefined {
  if (!model) return undefined;
  const slash = model.indexOf('/');
  return { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) };
}

function missingSession(e: unknown): ToolbridgeError | undefined {
  if (!(e instanceof ServeHttpError) || e.status !== 404) return undefined;
  return classifyFailure({ text: e.message, status: e.status, sessionCall: true }, OPENCODE_FAILURES);
}

/**
 * One chat turn on a warm `opencode serve`: a new session (`POST /session` with our title, so no
 * title call, and the level's rules), or the stored one (rules updated), or a fork of it; then
 * `prompt_async` and the session's events until `session.idle`. Provider failures come as events
 * (the HTTP answer is 200 either way); a retry OpenCode schedules (429s without a cap) ends the turn
 * at once as rate limited. However the turn ends early, the session is aborted.
 */
export async function* serveTurn(
  server: OpenCodeServer,
  request: ToolRequest,
  ctx: ChatContext,
  turn: TurnInputs,
): AsyncGenerator<StreamEvent> {
  const { model, catalogs, sessions } = turn;
  // With approvals every command, edit and tool that is not read-only is `ask`, answered below.
  const permissions = opencodePermissions(request, ctx, ctx.approvals !== undefined);
  const rules = sessionRules(permissions.config);
  const dir = ctx.cwd;
  const call = <T = Json>(method: string, path: string, body?: unknown) =>
    server.client.request<T>(method, path, { directory: dir, body, signal: ctx.signal, timeoutMs: CALL_TIMEOUT_MS });
  if (model && imagesOf(request.messages).length > 0 && !(await catalogs.takesImages(model, ctx))) {
    throw new InvalidRequestError(`OpenCode model ${model} does not take images; pick a model that does`, { toolId: TOOL_ID });
  }

  const resume = request.resume;
  // serve would run a continued session in its own directory whatever this chat's cwd: refused as on the spawn path.
  if (resume) sessions.check(resume.nativeSessionId, dir);
  let sessionId: string;
  try {
    if (resume?.fork) sessionId = String((await call<Json>('POST', `/session/${resume.nativeSessionId}/fork`, {})).id);
    else if (resume) sessionId = resume.nativeSessionId;
    else {
      const title = userWantsTitles(ctx.env) ? {} : { title: SESSION_TITLE };
      sessionId = String((await call<Json>('POST', '/session', { ...title, permission: rules })).id);
    }
    // A session's rules are appended to; the last matching rule wins, and ours start with `*`, so this turn gets exactly its level.
    if (resume) await call('PATCH', `/session/${sessionId}`, { permission: rules });
  } catch (e) {
    throw missingSession(e) ?? e;
  }

  const queue: ServeEvent[] = [];
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const off = server.onSession(sessionId, (e) => {
    queue.push(e);
    poke();
  });
  const offExit = server.onExit(poke);
  ctx.signal.addEventListener('abort', poke);
  ctx.interrupt?.addEventListener('abort', poke);
  let idle = false;
  let interrupting = false;
  try {
    const format =
      request.responseFormat?.type === 'json_schema' ? { type: 'json_schema', schema: request.responseFormat.schema } : undefined;
    const ref = modelRef(model);
    await call('POST', `/session/${sessionId}/prompt_async`, {
      ...(ref ? { model: ref } : {}),
      parts: promptParts(request),
      ...(format ? { format } : {}),
    });

    const run = new RunAccumulator();
    const activity = new ActivityTracker();
    const userMessages = new Set<string>();
    const partTypes = new Map<string, string>();
    const textParts = new Set<string>();
    let streamed = '';
    let lastInfo: Json = {};
    let error: ToolbridgeError | undefined;
    for (;;) {
      const e = queue.shift();
      if (!e) {
        ctx.signal.throwIfAborted();
        if (ctx.interrupt?.aborted && !interrupting) {
          // The caller's interrupt: the session stops (`session.idle` follows, ~11 ms) and stays usable.
          interrupting = true;
          await call('POST', `/session/${sessionId}/abort`).catch(() => undefined);
          continue;
        }
        if (!server.alive)
          throw new ProviderExecutionError("OpenCode's server exited during the chat", { toolId: TOOL_ID, retryable: true });
        await new Promise<void>((r) => (wake = r));
        continue;
      }
      const p = e.properties;
      if (e.type === 'session.idle') {
        idle = true;
        break;
      }
      if (e.type === 'message.updated') {
        const info = rec(p.info);
        if (info.role === 'user') userMessages.add(String(info.id));
        else if (info.role === 'assistant') lastInfo = info;
      } else if (e.type === 'message.part.updated') {
        const part = rec(p.part);
        if (userMessages.has(String(part.messageID))) continue;
        const id = String(part.id);
        partTypes.set(id, String(part.type));
        if (part.type === 'text') {
          if (rec(part.time).end === undefined) continue;
          run.accept(JSON.stringify({ type: 'text', sessionID: sessionId, part }));
          // A part whose text never came as deltas (or only partly) is sent whole now.
          const full = String(part.text ?? '');
          if (!textParts.has(id) && full) yield* delta(id, full);
          textParts.add(id);
        } else if (part.type === 'step-finish') run.accept(JSON.stringify({ type: 'step_finish', sessionID: sessionId, part }));
        else for (const a of activity.accept(part)) yield { type: 'activity', activity: a };
      } else if (e.type === 'message.part.delta') {
        const id = String(p.partID);
        if (p.field === 'text' && partTypes.get(id) === 'text' && typeof p.delta === 'string') yield* delta(id, p.delta);
      } else if (e.type === 'session.status' && rec(p.status).type === 'retry') {
        // OpenCode would wait as long as the provider says (an hour for `retry-after: 3600`) and retry 429s without end.
        const status = rec(p.status);
        const next = typeof status.next === 'number' ? Math.max(0, status.next - Date.now()) : undefined;
        const message = String(status.message ?? 'the provider asked to retry');
        error = classifyError({
          name: 'APIError',
          message,
          ...(/rate|quota|too many|429/i.test(message) ? { statusCode: 429 } : {}),
          isRetryable: true,
          ...(next !== undefined ? { responseHeaders: { 'retry-after-ms': String(next) } } : {}),
        });
        break;
      } else if (e.type === 'session.error') {
        const info = errorInfoOf(p);
        // An interrupt ends the turn with an abort error: that is the interrupt, not a failure.
        if (info.name !== 'StructuredOutputError' && !(interrupting && info.name === 'MessageAbortedError')) error ??= classifyError(info);
      } else if (e.type === 'permission.asked') {
        // With approvals, decided by the level and the caller (never blocking this loop). Without, our
        // rules leave no `ask`; one from elsewhere (a plugin) would hang the turn: refused, the model is told.
        const reply = ctx.approvals
          ? decidePermission(p, ctx, permissions.level, request.additionalDirs)
          : Promise.resolve({ reply: 'reject', message: 'Not allowed at this permission level.' });
        void reply
          .then((body) => server.client.request('POST', `/permission/${String(p.id)}/reply`, { directory: dir, body }))
          .catch(() => undefined);
      } else if (e.type === 'question.asked') {
        void server.client.request('POST', `/question/${String(p.id)}/reject`, { directory: dir }).catch(() => undefined);
      }
    }
    if (error) throw error;
    if (interrupting) {
      // The text so far (what was streamed), whatever OpenCode recorded for the aborted message.
      const result = run.result(model);
      result.message = { role: 'assistant', content: streamed };
      result.metadata = {
        ...result.metadata,
        nativeSessionId: sessionId,
        permissions: permissions.metadata,
        transport: 'warm',
        finishReason: 'interrupted',
      };
      sessions.remember(sessionId, dir);
      yield { type: 'result', result };
      return;
    }
    const result = run.result(
      model ?? (typeof lastInfo.providerID === 'string' ? `${lastInfo.providerID}/${String(lastInfo.modelID)}` : undefined),
    );
    const infoError = rec(lastInfo.error);
    if (lastInfo.structured !== undefined) result.message = { role: 'assistant', content: JSON.stringify(lastInfo.structured) };
    else if (infoError.name && infoError.name !== 'StructuredOutputError') throw classifyError(errorInfoOf({ error: infoError }));
    else if (!run.sawText) throw new ProviderExecutionError('OpenCode finished with no answer', { toolId: TOOL_ID });
    result.metadata = { ...result.metadata, nativeSessionId: sessionId, permissions: permissions.metadata, transport: 'warm' };
    sessions.remember(sessionId, dir);
    yield { type: 'result', result };

    function* delta(id: string, text: string): Generator<StreamEvent> {
      if (!textParts.has(id)) {
        // The first text of a new part: a paragraph break after the previous part's text, as in the final answer.
        if (streamed) text = PART_SEPARATOR + text;
        textParts.add(id);
      }
      streamed += text;
      yield { type: 'delta', text };
    }
  } finally {
    off();
    offExit();
    ctx.signal.removeEventListener('abort', poke);
    ctx.interrupt?.removeEventListener('abort', poke);
    // A deadline, a cancel, a consumer that stopped, a retry we refused: the session must stop working.
    if (!idle && server.alive) {
      await server.client
        .request('POST', `/session/${sessionId}/abort`, { directory: dir, timeoutMs: ABORT_TIMEOUT_MS })
        .catch(() => undefined);
    }
  }
}
