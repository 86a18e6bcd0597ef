import { describe, expect, it } from '@jest/globals';
import { client as acpClient } from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Approval, FallbackChatResponse } from '@toolbridge/core';
import type { ValidChatRequest } from '@toolbridge/core/runtime';
import { waitFor } from '@toolbridge/test-suite/kit';
import type { Toolbridge } from 'toolbridge';
import { createAcpFace } from './acp.js';
import { createMcpFace } from './mcp.js';
import type { ApprovalHandler } from './turn.js';

const approval: Approval = {
  id: 'apr_1',
  toolId: 'worker',
  kind: 'command',
  title: 'Run npm test',
  command: 'npm test',
  cwd: '/tmp',
  options: ['allow', 'allow_session', 'deny'],
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
};

/**
 * The library at the faces' seam: a chat asks one action through the call option `onApproval`
 * (core's `approvals: "ask"`) and answers with the decision it got, so the test sees what the
 * host's answer became.
 */
function askingToolbridge(seen: { requests: ValidChatRequest[] }): Toolbridge {
  return {
    discover: async () => [],
    async *streamChat(request: ValidChatRequest, options: { onApproval?: ApprovalHandler }) {
      seen.requests.push(request);
      const reply = options.onApproval ? await options.onApproval(approval) : { decision: 'none' };
      const answer = `decision: ${reply.decision}`;
      const response = {
        toolId: 'worker',
        type: 'agent',
        model: 'm',
        sessionId: 'tbs_abcdefgh',
        result: { message: { role: 'assistant', content: answer }, usage: { input_tokens: 1, output_tokens: 1 } },
        latencyMs: 1,
        fallbackUsed: false,
        attempts: [],
        route: { policy: 'in-order', order: ['worker'] },
      } satisfies FallbackChatResponse;
      yield { type: 'done' as const, response };
    },
  } as unknown as Toolbridge;
}

async function mcpPair(options: Parameters<typeof createMcpFace>[0], elicit?: (message: string) => Record<string, unknown>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpFace(options).connect(serverSide);
  const client = new Client({ name: 'host', version: '1' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (req) => elicit(req.params.message) as never);
  await client.connect(clientSide);
  return client;
}

const answerOf = async (client: Client) =>
  ((await client.callTool({ name: 'chat', arguments: { prompt: 'test it' } })) as CallToolResult).content[0];

describe('approvals through the faces', () => {
  it('MCP: with approvals on, an asked action is an elicitation and its answer is the decision', async () => {
    const seen = { requests: [] as ValidChatRequest[] };
    const messages: string[] = [];
    const client = await mcpPair({ toolbridge: askingToolbridge(seen), approvals: 'ask' }, (message) => {
      messages.push(message);
      return { action: 'accept', content: { decision: 'allow_session' } };
    });
    expect(await answerOf(client)).toEqual({ type: 'text', text: 'decision: allow_session' });
    expect(messages).toEqual(['worker asks: Run npm test']);
    expect(seen.requests).toHaveLength(1);
    await client.close();
  });

  it('MCP: a declined elicitation denies', async () => {
    const client = await mcpPair({ toolbridge: askingToolbridge({ requests: [] }), approvals: 'ask' }, () => ({ action: 'decline' }));
    expect(await answerOf(client)).toEqual({ type: 'text', text: 'decision: deny' });
    await client.close();
  });

  it('MCP: a host without elicitation gets the configured policy (deny unless told allow)', async () => {
    const denying = await mcpPair({ toolbridge: askingToolbridge({ requests: [] }), approvals: 'ask' });
    expect(await answerOf(denying)).toEqual({ type: 'text', text: 'decision: deny' });
    const allowing = await mcpPair({ toolbridge: askingToolbridge({ requests: [] }), approvals: 'ask', approvalFallback: 'allow' });
    expect(await answerOf(allowing)).toEqual({ type: 'text', text: 'decision: allow' });
    await Promise.all([denying.close(), allowing.close()]);
  });

  it('MCP: with approvals off nothing is asked and the request does not ask', async () => {
    const seen = { requests: [] as ValidChatRequest[] };
    const client = await mcpPair({ toolbridge: askingToolbridge(seen) }, () => {
      throw new Error('must not be asked');
    });
    expect(await answerOf(client)).toEqual({ type: 'text', text: 'decision: none' });
    await client.close();
  });

  it('ACP: an asked action is session/request_permission; the chosen option is the decision', async () => {
    const asked: unknown[] = [];
    const editor = acpClient({ name: 'editor' }).onRequest('session/request_permission', ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: 'selected', optionId: 'deny' } };
    });
    const texts: string[] = [];
    editor.onNotification('session/update', ({ params }) => {
      if (params.update.sessionUpdate === 'agent_message_chunk' && params.update.content.type === 'text')
        texts.push(params.update.content.text);
    });
    const connection = editor.connect(createAcpFace({ toolbridge: askingToolbridge({ requests: [] }), approvals: 'ask' }));
    try {
      await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await connection.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
      await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'test it' }] });
      expect(asked).toEqual([
        expect.objectContaining({
          sessionId,
          toolCall: expect.objectContaining({
            toolCallId: 'apr_1',
            title: 'Run npm test',
            kind: 'execute',
            rawInput: { command: 'npm test', cwd: '/tmp' },
          }),
          options: [
            { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
            { optionId: 'allow_session', name: 'Allow for this session', kind: 'allow_always' },
            { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
          ],
        }),
      ]);
      await waitFor(() => texts.join('') === 'decision: deny', 2_000, 'the answer');
    } finally {
      connection.close();
    }
  });
});
