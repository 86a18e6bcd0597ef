import type { ContentBlock } from '@agentclientprotocol/sdk';
import { type ChatContext, type ToolRequest } from '@toolbridge/core';
import { raceAbort } from '@toolbridge/core/runtime';
import { AcpRequestError, type AcpAgent } from './acp-agent.js';
import type { AcpTurnSpec } from './acp-turn-spec.js';
import { imagesOf, renderConversation } from './text.js';

type Json = Record<string, unknown>;

/** Bound on the requests around a prompt (session/new, load, set_mode: tens of ms here). */
export const RPC_TIMEOUT_MS = 30_000;

/** The prompt: the conversation as text, then each image as an ACP image block. */
export function promptBlocks(request: ToolRequest): ContentBlock[] {
  const images = imagesOf(request.messages).map((i): ContentBlock => ({ type: 'image', data: i.data, mimeType: i.mediaType }));
  return [{ type: 'text', text: renderConversation(request.messages) }, ...images];
}

/** A session ready for the prompt: its id and what `session/new` / `session/load` answered. */
export type OpenedSession = { sessionId: string; opened: Json } | { loadFailed: Error };

/**
 * The chat's session on the agent: a new one for a fresh conversation (`session/new`), the one
 * this process holds, or the chat's session loaded (`session/load`; an error answer is given back
 * as `loadFailed`); then switched to the spec's mode and config options.
 */
export async function openSession(agent: AcpAgent, request: ToolRequest, ctx: ChatContext, spec: AcpTurnSpec): Promise<OpenedSession> {
  const call = <T = Json>(method: string, params: unknown) =>
    raceAbort(agent.request<T>(method, params, RPC_TIMEOUT_MS), ctx.signal).catch((e: unknown) =>
      Promise.reject(e instanceof AcpRequestError ? spec.failure(e.message) : e),
    );
  const mcpServers = [...(spec.mcpServers ?? [])];
  let sessionId: string;
  let opened: Json;
  if (request.resume) {
    sessionId = request.resume.nativeSessionId;
    if (agent.live.has(sessionId)) {
      // Still in this process's memory, history and all (measured: Gemini 0.61 cannot `session/load` a
      // session it holds, Copilot refuses to: "already loaded").
      opened = {};
    } else {
      // The history it replays as updates is not this turn's: nobody listens yet.
      const loaded = await raceAbort(
        agent.request<Json | null>('session/load', { sessionId, cwd: ctx.cwd, mcpServers }, RPC_TIMEOUT_MS),
        ctx.signal,
      ).then(
        (r) => r ?? {},
        (e: unknown) => {
          if (ctx.signal.aborted || !(e instanceof AcpRequestError)) throw e;
          return e;
        },
      );
      if (loaded instanceof Error) return { loadFailed: loaded };
      opened = loaded;
      agent.live.add(sessionId);
    }
  } else {
    opened = await call<Json>('session/new', { cwd: ctx.cwd, mcpServers });
    sessionId = String(opened.sessionId);
    agent.live.add(sessionId);
  }
  const currentMode = (opened.modes as { currentModeId?: string } | undefined)?.currentModeId;
  if (spec.modeId && spec.modeId !== currentMode) await call('session/set_mode', { sessionId, modeId: spec.modeId });
  for (const [configId, value] of Object.entries(spec.configOptions ?? {})) {
    await call('session/set_config_option', { sessionId, configId, value });
  }
  return { sessionId, opened };
}
