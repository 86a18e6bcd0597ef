import { randomUUID } from 'node:crypto';
import { agent, PROTOCOL_VERSION, RequestError, type AgentApp } from '@agentclientprotocol/sdk';
import type * as acp from '@agentclientprotocol/sdk';
import { AbortedError, type ContentPart, type ImageMediaType, type PermissionLevel } from '@toolbridge/core';
import { bridgeVersion } from '../version.js';
import { activityUpdate, permissionRequest } from './acp-updates.js';
import { faceError, runFaceTurn, type FaceSettings } from './turn.js';

export interface AcpFaceOptions extends FaceSettings {
  /** `ask`: each action an agent wants to take becomes `session/request_permission`. */
  approvals?: 'ask' | 'never';
  /** The level every prompt asks for (default: the library's, read-only). */
  permissions?: PermissionLevel;
}

interface AcpSession {
  id: string;
  cwd: string;
  /** `auto` (the configured fallback chain) or one tool id. */
  tool: string;
  /** The Toolbridge session the prompts continue, once there is one. */
  toolbridgeSessionId?: string;
  turn?: AbortController;
}

const AUTO = 'auto';

/** A prompt's content blocks as a chat message's parts: text, images, and the text of embedded resources. */
function partsOf(blocks: acp.ContentBlock[]): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push({ type: 'image', data: block.data, mediaType: block.mimeType as ImageMediaType });
    else if (block.type === 'resource' && 'text' in block.resource) parts.push({ type: 'text', text: block.resource.text });
    else if (block.type === 'resource_link') parts.push({ type: 'text', text: block.uri });
  }
  return parts;
}

/** A Toolbridge error as a JSON-RPC error the editor shows: its code and message, nothing more. */
const toRequestError = (err: unknown) => {
  const { code, message } = faceError(err);
  return new RequestError(code === 'invalid_request' ? -32602 : -32603, `${code}: ${message}`, { code });
};

/**
 * Toolbridge as an ACP agent (`toolbridge acp`): an editor (Zed, JetBrains, Neovim) starts it and
 * gets every local agent, with the configured fallback chain as the default `tool`.
 */
export function createAcpFace(options: AcpFaceOptions): AgentApp {
  const { toolbridge } = options;
  const sessions = new Map<string, AcpSession>();

  const toolOption = async (session: AcpSession): Promise<acp.SessionConfigOption[]> => {
    const tools = (await toolbridge.discover()).filter((t) => t.available);
    return [
      {
        id: 'tool',
        name: 'Tool',
        description: 'The agent that answers; auto: the configured fallback chain',
        type: 'select',
        currentValue: session.tool,
        options: [
          { value: AUTO, name: 'Auto (fallback chain)' },
          ...tools.map((t) => ({ value: t.id, name: t.version ? `${t.name} ${t.version}` : t.name })),
        ],
      },
    ];
  };
  const sessionOf = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (!session) throw RequestError.sessionNotFound(id);
    return session;
  };

  return agent({ name: 'toolbridge' })
    .onRequest('initialize', () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true } },
      agentInfo: { name: 'toolbridge', title: 'Toolbridge', version: bridgeVersion() },
      authMethods: [],
    }))
    .onRequest('session/new', async ({ params }) => {
      const session: AcpSession = { id: `acp_${randomUUID()}`, cwd: params.cwd, tool: AUTO };
      sessions.set(session.id, session);
      return { sessionId: session.id, configOptions: await toolOption(session) };
    })
    .onRequest('session/load', async ({ params, client }) => {
      // A Toolbridge session (tbs_…, as `_meta.toolbridge.sessionId` of a prompt's answer reports it).
      const detail = await toolbridge.sessions.get(params.sessionId).catch((err: unknown) => {
        throw toRequestError(err);
      });
      const session: AcpSession = { id: params.sessionId, cwd: params.cwd, tool: AUTO, toolbridgeSessionId: detail.id };
      sessions.set(session.id, session);
      for (const message of detail.messages) {
        if (message.role === 'system') continue;
        const text =
          typeof message.content === 'string'
            ? message.content
            : message.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('');
        await client.notify('session/update', {
          sessionId: session.id,
          update: {
            sessionUpdate: message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
            content: { type: 'text', text },
          },
        });
      }
      return { configOptions: await toolOption(session) };
    })
    .onRequest('session/set_config_option', async ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (params.configId !== 'tool' || typeof params.value !== 'string')
        throw RequestError.invalidParams(undefined, `unknown config option "${params.configId}"`);
      if (params.value !== AUTO) {
        try {
          toolbridge.registry.adapter(params.value);
        } catch (err) {
          throw toRequestError(err);
        }
      }
      session.tool = params.value;
      return { configOptions: await toolOption(session) };
    })
    .onRequest('session/prompt', async ({ params, client, signal }) => {
      const session = sessionOf(params.sessionId);
      session.turn?.abort(new AbortedError('a new prompt replaced this one'));
      const turn = new AbortController();
      session.turn = turn;
      const stop = () => turn.abort(new AbortedError('the editor cancelled the prompt'));
      signal.addEventListener('abort', stop, { once: true });
      const update = (u: acp.SessionUpdate) =>
        void client.notify('session/update', { sessionId: session.id, update: u }).catch(() => undefined);
      const seen = new Set<string>();
      let streamed = false;
      try {
        const response = await runFaceTurn(
          options,
          {
            content: partsOf(params.prompt),
            ...(session.tool !== AUTO ? { toolId: session.tool } : {}),
            ...(session.toolbridgeSessionId ? { sessionId: session.toolbridgeSessionId } : {}),
            cwd: session.cwd,
            ...(options.permissions ? { permissions: options.permissions } : {}),
            ...(options.approvals === 'ask' ? { approvals: 'ask' as const } : {}),
          },
          {
            signal: turn.signal,
            onDelta: (t) => {
              streamed = true;
              update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } });
            },
            onActivity: (a) => update(activityUpdate(a, seen, session.cwd)),
            onApproval: async (approval) => {
              const answer = await client.request('session/request_permission', permissionRequest(session.id, approval, session.cwd), {
                cancellationSignal: turn.signal,
                stopWaitingOnCancel: true,
              });
              return answer.outcome.outcome === 'selected' && approval.options.includes(answer.outcome.optionId as never)
                ? { decision: answer.outcome.optionId as 'allow' | 'allow_session' | 'deny' }
                : { decision: 'deny', message: 'the user cancelled' };
            },
          },
        );
        if (response.sessionId) session.toolbridgeSessionId = response.sessionId;
        // A tool that answered without streaming (or a structured answer) still shows its answer.
        const answer = response.result.message.content;
        if (!streamed && answer) update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: answer } });
        return {
          stopReason: 'end_turn' as const,
          _meta: { toolbridge: { toolId: response.toolId, sessionId: response.sessionId, fallbackUsed: response.fallbackUsed } },
        };
      } catch (err) {
        if (turn.signal.aborted) return { stopReason: 'cancelled' as const };
        throw toRequestError(err);
      } finally {
        signal.removeEventListener('abort', stop);
        if (session.turn === turn) session.turn = undefined;
      }
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort(new AbortedError('the editor cancelled the prompt'));
    });
}
