import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { LIMITS, PERMISSION_LEVELS, wire, type Approval, type ApprovalReply } from '@toolbridge/core';
import { z } from 'zod';
import { bridgeVersion } from '../version.js';
import { activityLine, faceError, runFaceTurn, type FaceSettings } from './turn.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpFaceOptions extends FaceSettings {
  /** `ask`: every action an agent wants to take is asked first (an elicitation where the host supports it). */
  approvals?: 'ask' | 'never';
  /** What decides an asked action when the host cannot be asked (no elicitation support); default deny. */
  approvalFallback?: 'allow' | 'deny';
  /** Bound on one health check. */
  healthTimeoutMs?: number;
}

const chatInput = {
  prompt: z.string().min(1).describe('What to ask the agent'),
  toolId: z.string().min(1).optional().describe('Ask this tool only (see discover); default: the configured fallback chain'),
  providers: z.array(z.string().min(1)).min(1).max(LIMITS.maxProviders).optional().describe('Tool ids to try, in order (fallback)'),
  sessionId: z.string().regex(new RegExp(wire.SESSION_ID_PATTERN)).optional().describe('Continue this Toolbridge session (tbs_…)'),
  cwd: z.string().min(1).optional().describe('Working directory of the agent (must exist)'),
  permissions: z.enum(PERMISSION_LEVELS).optional().describe('read-only (default), workspace-write, full'),
  schema: z.record(z.string(), z.unknown()).optional().describe('A JSON Schema the answer must match; the parsed answer is in "object"'),
  timeoutMs: z.number().int().min(1).max(LIMITS.maxTimeoutMs).optional().describe('Deadline of the whole chat, in milliseconds'),
};

const chatOutput = {
  toolId: z.string(),
  sessionId: z.string().optional(),
  answer: z.string(),
  object: z.unknown().optional(),
  fallbackUsed: z.boolean(),
  attempts: z.array(z.record(z.string(), z.unknown())),
  usage: z.record(z.string(), z.unknown()),
};

/** A failure: "code: message" as text (hosts check structuredContent against the output schema even on errors). */
const errorResult = (err: unknown): CallToolResult => {
  const { code, message } = faceError(err);
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
};

/**
 * Progress for the host: one notification per activity step, so a host resets its timeout while
 * the agent works. `flush()` waits for those sent: one arriving after the result is dropped.
 */
function progressReporter(extra: Extra): { report?: (message: string) => void; flush(): Promise<void> } {
  const token = extra._meta?.progressToken;
  let sent = Promise.resolve();
  if (token === undefined) return { flush: () => sent };
  let progress = 0;
  const report = (message: string) => {
    const params = { progressToken: token, progress: ++progress, message };
    sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined));
  };
  return { report, flush: () => sent };
}

const DECISION_LABELS: Record<wire.ApprovalDecision, string> = {
  allow: 'Allow once',
  allow_session: 'Allow for this session',
  deny: 'Deny',
};

/** An asked action as an MCP elicitation; a host that declines, cancels or cannot answer denies it. */
async function elicitApproval(server: McpServer, approval: Approval, signal: AbortSignal): Promise<ApprovalReply> {
  const detail = approval.command ?? approval.changes?.map((c) => `${c.kind} ${c.path}`).join(', ') ?? approval.tool ?? '';
  const result = await server.server.elicitInput(
    {
      mode: 'form',
      message: `${approval.toolId} asks: ${approval.title}${detail && !approval.title.includes(detail) ? `\n${detail}` : ''}`,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            enum: [...approval.options],
            enumNames: approval.options.map((o) => DECISION_LABELS[o]),
            default: 'deny',
          },
        },
        required: ['decision'],
      },
    },
    { signal },
  );
  const decision = result.action === 'accept' ? result.content?.decision : undefined;
  return typeof decision === 'string' && (approval.options as string[]).includes(decision)
    ? { decision: decision as wire.ApprovalDecision }
    : { decision: 'deny', message: 'the user declined' };
}

/**
 * Toolbridge as an MCP server: the tools `chat`, `discover` and `health` over the library. The
 * same server serves stdio (`toolbridge mcp`) and Streamable HTTP (`POST /mcp` on the bridge).
 */
export function createMcpFace(options: McpFaceOptions): McpServer {
  const { toolbridge } = options;
  const server = new McpServer({ name: 'toolbridge', version: bridgeVersion() }, { capabilities: { tools: {} } });

  server.registerTool(
    'chat',
    {
      title: 'Ask a local coding agent',
      description:
        'Ask a local agent CLI (Codex, Claude Code, OpenCode, Gemini CLI, Copilot CLI, Ollama…) and get its answer. ' +
        'Without toolId or providers the configured fallback chain answers. Send the returned sessionId to continue.',
      inputSchema: chatInput,
      outputSchema: chatOutput,
    },
    async (args, extra): Promise<CallToolResult> => {
      const progress = progressReporter(extra);
      const canElicit = server.server.getClientCapabilities()?.elicitation !== undefined;
      try {
        const { prompt, ...rest } = args;
        const response = await runFaceTurn(
          options,
          { content: prompt, ...rest, ...(options.approvals === 'ask' ? { approvals: 'ask' as const } : {}) },
          {
            signal: extra.signal,
            onActivity: progress.report && ((activity) => progress.report!(activityLine(activity))),
            onApproval: async (approval) =>
              canElicit
                ? elicitApproval(server, approval, extra.signal).catch(() => ({
                    decision: 'deny' as const,
                    message: 'the host did not answer',
                  }))
                : { decision: options.approvalFallback ?? 'deny' },
          },
        );
        const answer = response.result.message.content;
        await progress.flush();
        return {
          content: [{ type: 'text', text: answer }],
          structuredContent: {
            toolId: response.toolId,
            ...(response.sessionId ? { sessionId: response.sessionId } : {}),
            answer,
            ...(response.result.object !== undefined ? { object: response.result.object } : {}),
            fallbackUsed: response.fallbackUsed,
            attempts: response.attempts,
            usage: response.result.usage,
          },
        };
      } catch (err) {
        return errorResult(err);
      }
    },
  );

  server.registerTool(
    'discover',
    {
      title: 'List the local agents',
      description: 'The tools Toolbridge can use on this machine: installed or not, version, models, capabilities.',
      inputSchema: {},
      outputSchema: { tools: z.array(z.record(z.string(), z.unknown())) },
    },
    async (): Promise<CallToolResult> => {
      try {
        const tools = await toolbridge.discover();
        const lines = tools.map((t) => `${t.id}: ${t.available ? `available${t.version ? ` (${t.version})` : ''}` : 'not available'}`);
        return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { tools } };
      } catch (err) {
        return errorResult(err);
      }
    },
  );

  server.registerTool(
    'health',
    {
      title: 'Health and usage windows of the local agents',
      description: 'Whether each tool (or the one given) is installed, logged in and within its usage limits.',
      inputSchema: { toolId: z.string().min(1).optional().describe('One tool; default: every tool') },
      outputSchema: { tools: z.array(z.record(z.string(), z.unknown())) },
    },
    async ({ toolId }, extra): Promise<CallToolResult> => {
      try {
        const call = { signal: extra.signal, ...(options.healthTimeoutMs ? { timeoutMs: options.healthTimeoutMs } : {}) };
        const tools = toolId ? [await toolbridge.checkHealth(toolId, call)] : await toolbridge.checkAllToolsHealth(call);
        const lines = tools.map((t) => `${t.toolId}: ${t.status}`);
        return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { tools } };
      } catch (err) {
        return errorResult(err);
      }
    },
  );

  return server;
}
