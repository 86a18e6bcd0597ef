import { wire } from '@toolbridge/core';
import { approvalReplySchema, authRequestSchema, fallbackChatRequestSchema, toolChatRequestSchema } from './schemas.js';

/** What one method of one path does, for the router (which must handle it) and `/openapi.json` (which documents it). */
export interface RouteDoc {
  operationId: string;
  summary: string;
  query?: readonly QueryParam[];
  body?: { schema: string; required: boolean };
  response: { status: 200 | 202 | 204; description: string; schema?: unknown; sse?: string };
  errors: readonly number[];
}

export type Method = 'get' | 'put' | 'post' | 'delete';

/** Query parameters a route reads (documented once, in openapi.ts). */
export type QueryParam = 'refresh' | 'since' | 'until' | 'groupBy' | 'toolId';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const object = (properties: Record<string, unknown>) => ({ type: 'object', required: Object.keys(properties), properties });
/** `{ <key>: [<schema>, …] }`: how the API answers a list. */
const listOf = (key: string, schema: string) => object({ [key]: { type: 'array', items: ref(schema) } });

/** Components of the OpenAPI document: the wire schemas and the request bodies, as validated. */
export const SCHEMAS = {
  ChatMessage: wire.ChatMessage,
  ContentPart: wire.ContentPart,
  ResponseFormat: wire.ResponseFormat,
  Activity: wire.Activity,
  ToolChatRequest: toolChatRequestSchema,
  FallbackChatRequest: fallbackChatRequestSchema,
  AuthRequest: authRequestSchema,
  ApprovalReply: approvalReplySchema,
  Approval: wire.Approval,
  ApprovalRecord: wire.ApprovalRecord,
  ErrorEnvelope: wire.ErrorEnvelope,
  Tool: wire.Tool,
  UsageLimits: wire.UsageLimits,
  HealthRecord: wire.LiveHealthRecord,
  AggregateHealth: wire.AggregateHealth,
  AuthStartResult: wire.AuthStartResult,
  ChatResponse: wire.ChatResponse,
  Attempt: wire.Attempt,
  FallbackChatResponse: wire.FallbackChatResponse,
  SessionSummary: wire.SessionSummary,
  SessionDetail: wire.SessionDetail,
  RouteInfo: wire.RouteInfo,
  QueueResponse: wire.QueueResponse,
  UsageSummary: wire.UsageSummary,
  WindowSnapshots: wire.WindowSnapshots,
} as const;

const CHAT_SSE =
  'SSE events: delta {text}, activity {activity}, approval <Approval> (with approvals "ask": answer it with POST /approvals/{approvalId}), then done (data: the JSON response) or error (data: ErrorEnvelope)';

/**
 * Every route of the native API, once. The router registers exactly these (a route without a
 * handler, or a handler without a route, does not compile), and the OpenAPI paths are built from
 * them, so the document cannot miss or invent an endpoint.
 */
export const ROUTE_TABLE = {
  '/config': {
    get: {
      operationId: 'getConfig',
      summary: 'Read the process-level provider config',
      response: { status: 200, description: 'The config', schema: object({ config: ref('Config') }) },
      errors: [],
    },
    put: {
      operationId: 'replaceConfig',
      summary: 'Replace the whole config; keys not given are removed',
      body: { schema: 'Config', required: true },
      response: { status: 200, description: 'The new config', schema: object({ config: ref('Config') }) },
      errors: [400, 413, 415],
    },
  },
  '/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Health, auth state and usage windows of every tool (checked in parallel, each bounded; reused for a few seconds)',
      query: ['refresh'],
      response: { status: 200, description: 'Aggregate health', schema: ref('AggregateHealth') },
      errors: [400],
    },
  },
  '/health/:toolId': {
    get: {
      operationId: 'getToolHealth',
      summary: 'Health of one tool',
      query: ['refresh'],
      response: { status: 200, description: 'Health record', schema: ref('HealthRecord') },
      errors: [400, 404],
    },
  },
  '/discover': {
    get: {
      operationId: 'discover',
      summary: 'List the tools',
      query: ['refresh'],
      response: { status: 200, description: 'Tools', schema: listOf('tools', 'Tool') },
      errors: [400],
    },
  },
  '/auth/:toolId': {
    post: {
      operationId: 'startAuth',
      summary: "Start a tool's login flow",
      body: { schema: 'AuthRequest', required: false },
      response: { status: 200, description: 'Auth start result', schema: ref('AuthStartResult') },
      errors: [400, 404, 503, 504],
    },
  },
  '/chat/:toolId': {
    post: {
      operationId: 'chatWithTool',
      summary: 'Chat with one tool; send a sessionId to continue a conversation',
      body: { schema: 'ToolChatRequest', required: true },
      response: { status: 200, description: 'The answer; with "stream": true an SSE stream', schema: ref('ChatResponse'), sse: CHAT_SSE },
      errors: [400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503, 504],
    },
  },
  '/chat': {
    post: {
      operationId: 'chatWithFallback',
      summary: 'Chat with retries and fallback across an ordered list of tools (a session’s own tool first)',
      body: { schema: 'FallbackChatRequest', required: true },
      response: {
        status: 200,
        description: 'The answer and the attempts log; with "stream": true an SSE stream, with attempt events too',
        schema: ref('FallbackChatResponse'),
        sse: `${CHAT_SSE}; attempt <Attempt>`,
      },
      errors: [400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503, 504],
    },
  },
  '/queue': {
    get: {
      operationId: 'getQueue',
      summary: 'Fallback chats waiting for a usage window to reset (waitForQuota), and when each will run',
      response: { status: 200, description: 'The waiting chats', schema: ref('QueueResponse') },
      errors: [],
    },
  },
  '/usage': {
    get: {
      operationId: 'getUsage',
      summary: 'Chats recorded by the usage ledger in a period (default: the last 7 days), grouped by tool, day (UTC) or model',
      query: ['since', 'until', 'groupBy'],
      response: { status: 200, description: 'Counts, tokens and reported cost per group', schema: ref('UsageSummary') },
      errors: [400],
    },
  },
  '/usage/windows': {
    get: {
      operationId: 'getUsageWindows',
      summary: "Each tool's usage windows each time they changed, oldest first",
      query: ['toolId', 'since'],
      response: { status: 200, description: 'Window snapshots', schema: ref('WindowSnapshots') },
      errors: [400, 404],
    },
  },
  '/sessions': {
    get: {
      operationId: 'listSessions',
      summary: 'Sessions, most recently used first',
      response: { status: 200, description: 'Sessions', schema: listOf('sessions', 'SessionSummary') },
      errors: [],
    },
  },
  '/sessions/:sessionId': {
    get: {
      operationId: 'getSession',
      summary: 'One session with its transcript',
      response: { status: 200, description: 'The session', schema: ref('SessionDetail') },
      errors: [404],
    },
    delete: {
      operationId: 'deleteSession',
      summary: 'Delete a session, its transcript and its private working directory',
      response: { status: 204, description: 'Deleted' },
      errors: [404, 409],
    },
  },
  '/sessions/:sessionId/interrupt': {
    post: {
      operationId: 'interruptSession',
      summary:
        'Stop the session’s running turn: it ends within 2 s with the text so far and metadata.finishReason "interrupted"; the session stays usable',
      response: {
        status: 202,
        description: 'Interrupted',
        schema: object({ sessionId: { type: 'string' }, interrupted: { const: true } }),
      },
      errors: [404, 409],
    },
  },
  '/approvals': {
    get: {
      operationId: 'listApprovals',
      summary: 'Approvals waiting for an answer (chats with approvals "ask"), oldest first',
      response: { status: 200, description: 'Pending approvals', schema: listOf('approvals', 'Approval') },
      errors: [],
    },
  },
  '/approvals/:approvalId': {
    post: {
      operationId: 'decideApproval',
      summary:
        'Answer a pending approval: allow, allow_session (the same command, path or tool is not asked again in that session) or deny',
      body: { schema: 'ApprovalReply', required: true },
      response: {
        status: 200,
        description: 'Decided',
        schema: object({ id: { type: 'string' }, decision: { type: 'string', enum: ['allow', 'allow_session', 'deny'] } }),
      },
      errors: [400, 404, 409, 413, 415],
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      response: { status: 200, description: 'OpenAPI 3.1 document', schema: { type: 'object' } },
      errors: [],
    },
  },
} as const satisfies Record<string, Partial<Record<Method, RouteDoc>>>;

export type RoutePath = keyof typeof ROUTE_TABLE;
