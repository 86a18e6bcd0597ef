import { authRequestSchema, chatMessageSchema, fallbackChatRequestSchema, toolChatRequestSchema } from './schemas.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });

const usageWindow = {
  type: 'object',
  properties: {
    usedPercentage: { type: 'number' },
    remainingPercentage: { type: 'number' },
    resetsAt: { type: 'string', format: 'date-time' },
    windowMinutes: { type: 'integer' },
  },
  required: ['usedPercentage', 'remainingPercentage'],
};

/** Response schemas: the spec's resources (documentation only; responses are built by the library). */
const responseSchemas = {
  ErrorEnvelope: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            examples: [
              'invalid_request',
              'tool_auth_required',
              'tool_not_found',
              'internal_error',
              'provider_execution_failed',
              'tool_unavailable',
              'timeout',
            ],
          },
          message: { type: 'string' },
          toolId: { type: 'string' },
          retryable: { type: 'boolean' },
          retryAfterMs: { type: 'integer' },
          attempts: { type: 'array', items: ref('Attempt') },
        },
      },
    },
  },
  Tool: {
    type: 'object',
    required: ['id', 'name', 'type', 'available', 'capabilities', 'models'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      type: { type: 'string', enum: ['agent', 'runtime'] },
      available: { type: 'boolean' },
      version: { type: 'string' },
      capabilities: { type: 'array', items: { type: 'string' } },
      models: { type: 'array', items: { type: 'string' } },
      defaultModel: { type: 'string' },
      reason: { type: 'string' },
    },
  },
  UsageLimits: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['available', 'unavailable'] },
      source: { type: 'string' },
      plan: { type: 'string' },
      windows: { type: 'object', additionalProperties: usageWindow },
      observedAt: { type: 'string', format: 'date-time' },
      reason: { type: 'string' },
    },
  },
  HealthRecord: {
    type: 'object',
    required: ['toolId', 'status', 'available', 'authSupported', 'authenticated', 'authStatus', 'latencyMs', 'checkedAt'],
    properties: {
      toolId: { type: 'string' },
      status: { type: 'string', enum: ['healthy', 'unavailable'] },
      available: { type: 'boolean' },
      authSupported: { type: 'boolean' },
      authenticated: { type: 'boolean' },
      authStatus: { type: 'string', enum: ['authenticated', 'unauthenticated', 'not_required', 'unknown'] },
      authMethod: { type: 'string' },
      usageLimits: ref('UsageLimits'),
      reason: { type: 'string' },
      version: { type: 'string' },
      latencyMs: { type: 'number' },
      checkedAt: { type: 'string', format: 'date-time' },
      load: ref('ToolLoad'),
    },
  },
  ToolLoad: {
    type: 'object',
    description: 'Chats of the tool running and waiting for a slot now, and the limits (live, never cached)',
    required: ['active', 'queued', 'maxConcurrent', 'maxQueued'],
    properties: {
      active: { type: 'integer' },
      queued: { type: 'integer' },
      maxConcurrent: { type: 'integer' },
      maxQueued: { type: 'integer' },
    },
  },
  AggregateHealth: {
    type: 'object',
    required: ['status', 'version', 'uptimeMs', 'tools'],
    properties: {
      status: { type: 'string', const: 'ok' },
      version: { type: 'string' },
      uptimeMs: { type: 'number' },
      tools: { type: 'array', items: ref('HealthRecord') },
    },
  },
  AuthStartResult: {
    type: 'object',
    required: ['toolId', 'status', 'authenticated', 'command', 'instructions', 'output', 'checkedAt'],
    properties: {
      toolId: { type: 'string' },
      status: { type: 'string', enum: ['started', 'already_authenticated', 'manual', 'in_progress'] },
      authenticated: { type: 'boolean' },
      command: { type: 'string' },
      instructions: { type: 'string' },
      output: { type: 'string' },
      url: { type: 'string' },
      checkedAt: { type: 'string', format: 'date-time' },
    },
  },
  ChatResponse: {
    type: 'object',
    required: ['toolId', 'type', 'model', 'result', 'latencyMs'],
    properties: {
      toolId: { type: 'string' },
      type: { type: 'string', enum: ['agent', 'runtime'] },
      model: { type: 'string' },
      result: {
        type: 'object',
        required: ['message', 'usage'],
        properties: { message: ref('ChatMessage'), usage: { type: 'object', additionalProperties: { type: 'integer' } } },
      },
      latencyMs: { type: 'number' },
    },
  },
  Attempt: {
    type: 'object',
    required: ['toolId', 'tryIndex', 'stage', 'outcome'],
    properties: {
      toolId: { type: 'string' },
      tryIndex: { type: 'integer' },
      stage: { type: 'string', enum: ['preflight', 'execution'] },
      outcome: { type: 'string', enum: ['skipped', 'failed', 'succeeded'] },
      reason: { type: 'string' },
      message: { type: 'string' },
      latencyMs: { type: 'number' },
    },
  },
  FallbackChatResponse: {
    allOf: [
      ref('ChatResponse'),
      {
        type: 'object',
        required: ['fallbackUsed', 'attempts'],
        properties: { fallbackUsed: { type: 'boolean' }, attempts: { type: 'array', items: ref('Attempt') } },
      },
    ],
  },
};

const refreshParam = {
  name: 'refresh',
  in: 'query',
  required: false,
  schema: { type: 'string', enum: ['true', 'false', '1', '0'] },
  description: 'Probe again instead of using the short-lived cache',
};

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_TEXT[s] ?? 'Error', content: json(ref('ErrorEnvelope')) }]));

const ERROR_TEXT: Record<number, string> = {
  400: 'invalid_request: malformed body or invalid config',
  401: 'tool_auth_required (the tool needs a login) or unauthorized (missing/wrong bridge token)',
  403: 'forbidden: Host or Origin not allowed',
  404: 'tool_not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type: bodies must be application/json',
  500: 'internal_error',
  502: 'provider_execution_failed',
  503: 'tool_unavailable (not installed, unreachable, shutting down, or busy: its concurrency queue is full; then `Retry-After` says when to retry)',
  504: 'timeout',
};

const toolIdParam = { name: 'toolId', in: 'path', required: true, schema: { type: 'string' } };

const sse = (description: string) => ({
  'text/event-stream': {
    schema: { type: 'string', description },
  },
});

/**
 * The OpenAPI 3.1 document of the native API. Request schemas are the very
 * objects the validators compiled; the config schema comes from the adapters.
 */
export function buildOpenApiDocument(options: { version: string; configSchema: Record<string, unknown>; tokenRequired: boolean }) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Toolbridge HTTP bridge',
      version: options.version,
      description: 'Use the AI tools installed on this machine (Codex, Claude Code, OpenCode, Ollama) over local HTTP.',
    },
    servers: [{ url: '/' }],
    components: {
      schemas: {
        ChatMessage: chatMessageSchema,
        ToolChatRequest: toolChatRequestSchema,
        FallbackChatRequest: fallbackChatRequestSchema,
        AuthRequest: authRequestSchema,
        Config: options.configSchema,
        ...responseSchemas,
      },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Required when the bridge runs with --token' } },
    },
    ...(options.tokenRequired ? { security: [{ bearerAuth: [] }] } : {}),
    paths: {
      '/config': {
        get: {
          operationId: 'getConfig',
          summary: 'Read the process-level provider config',
          responses: {
            '200': {
              description: 'The config',
              content: json({ type: 'object', required: ['config'], properties: { config: ref('Config') } }),
            },
          },
        },
        put: {
          operationId: 'replaceConfig',
          summary: 'Replace the whole config; keys not given are removed',
          requestBody: { required: true, content: json(ref('Config')) },
          responses: {
            '200': {
              description: 'The new config',
              content: json({ type: 'object', required: ['config'], properties: { config: ref('Config') } }),
            },
            ...errors(400, 413, 415),
          },
        },
      },
      '/health': {
        get: {
          operationId: 'getHealth',
          summary: 'Health, auth state and usage windows of every tool (checked in parallel, each bounded; reused for a few seconds)',
          parameters: [refreshParam],
          responses: { '200': { description: 'Aggregate health', content: json(ref('AggregateHealth')) }, ...errors(400) },
        },
      },
      '/health/{toolId}': {
        get: {
          operationId: 'getToolHealth',
          summary: 'Health of one tool',
          parameters: [toolIdParam, refreshParam],
          responses: { '200': { description: 'Health record', content: json(ref('HealthRecord')) }, ...errors(400, 404) },
        },
      },
      '/discover': {
        get: {
          operationId: 'discover',
          summary: 'List the tools',
          parameters: [refreshParam],
          responses: {
            '200': {
              description: 'Tools',
              content: json({ type: 'object', required: ['tools'], properties: { tools: { type: 'array', items: ref('Tool') } } }),
            },
            ...errors(400),
          },
        },
      },
      '/auth/{toolId}': {
        post: {
          operationId: 'startAuth',
          summary: "Start a tool's login flow",
          parameters: [toolIdParam],
          requestBody: { required: false, content: json(ref('AuthRequest')) },
          responses: { '200': { description: 'Auth start result', content: json(ref('AuthStartResult')) }, ...errors(400, 404, 503, 504) },
        },
      },
      '/chat/{toolId}': {
        post: {
          operationId: 'chatWithTool',
          summary: 'Chat with one tool',
          parameters: [toolIdParam],
          requestBody: { required: true, content: json(ref('ToolChatRequest')) },
          responses: {
            '200': {
              description:
                'The answer; with "stream": true an SSE stream of `delta`, `progress`, then `done` (data: ChatResponse) or `error` (data: ErrorEnvelope)',
              content: {
                ...json(ref('ChatResponse')),
                ...sse('SSE events: delta {text}, progress {item}, done <ChatResponse>, error <ErrorEnvelope>'),
              },
            },
            ...errors(400, 401, 404, 413, 415, 500, 502, 503, 504),
          },
        },
      },
      '/chat': {
        post: {
          operationId: 'chatWithFallback',
          summary: 'Chat with retries and fallback across an ordered list of tools',
          requestBody: { required: true, content: json(ref('FallbackChatRequest')) },
          responses: {
            '200': {
              description:
                'The answer and the attempts log; with "stream": true an SSE stream of `attempt`, `delta`, `progress`, then `done` (data: FallbackChatResponse) or `error`',
              content: {
                ...json(ref('FallbackChatResponse')),
                ...sse('SSE events: attempt <Attempt>, delta {text}, progress {item}, done <FallbackChatResponse>, error <ErrorEnvelope>'),
              },
            },
            ...errors(400, 401, 404, 413, 415, 500, 502, 503, 504),
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          responses: { '200': { description: 'OpenAPI 3.1 document', content: json({ type: 'object' }) } },
        },
      },
    },
  };
}
