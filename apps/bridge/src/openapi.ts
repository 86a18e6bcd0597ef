import { MCP_ROUTE_DOCS } from './faces/mcp-http.js';
import { ROUTE_TABLE, SCHEMAS, type QueryParam, type RouteDoc } from './route-table.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });

const ERROR_TEXT: Record<number, string> = {
  400: 'invalid_request: malformed body, invalid config, a missing cwd, an invalid schema or image',
  401: 'tool_auth_required (the tool needs a login) or unauthorized (missing/wrong bridge token)',
  403: 'forbidden: Host or Origin not allowed, or permissions "full" without a token or --allow-full-permissions',
  404: 'tool_not_found, session_not_found or approval_not_found (unknown or expired)',
  409: 'session_busy (the session is answering another turn), session_idle (no turn to interrupt) or approval_decided (answered already)',
  413: 'payload_too_large',
  415: 'unsupported_media_type: bodies must be application/json',
  429: 'rate_limited or quota_exceeded (with Retry-After when known)',
  500: 'internal_error',
  502: 'provider_execution_failed (details.reason "schema_mismatch" when a JSON answer did not match its schema)',
  503: 'tool_unavailable (not installed, unreachable, shutting down, or busy: its concurrency queue is full; then `Retry-After` says when to retry)',
  504: 'timeout',
};

const PATH_PARAMS = {
  toolId: 'A tool id (GET /discover lists them)',
  sessionId: 'A session id, tbs_…',
  approvalId: 'An approval id, apr_… (from the approval event or GET /approvals)',
} as const;

const QUERY_PARAMS: Record<QueryParam, { schema: Record<string, unknown>; description: string }> = {
  refresh: {
    schema: { type: 'string', enum: ['true', 'false', '1', '0'] },
    description: 'Probe again instead of using the short-lived cache',
  },
  since: { schema: { type: 'string', format: 'date-time' }, description: 'Start of the period (ISO 8601; default: 7 days before `until`)' },
  until: { schema: { type: 'string', format: 'date-time' }, description: 'End of the period (ISO 8601; default: now)' },
  groupBy: { schema: { type: 'string', enum: ['tool', 'day', 'model'] }, description: 'How to group the chats (default: tool)' },
  toolId: { schema: { type: 'string' }, description: 'Only this tool' },
};

function operation(path: string, doc: RouteDoc) {
  const params = [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: PATH_PARAMS[name as keyof typeof PATH_PARAMS],
  }));
  const content = doc.response.schema
    ? {
        ...json(doc.response.schema),
        ...(doc.response.sse ? { 'text/event-stream': { schema: { type: 'string', description: doc.response.sse } } } : {}),
      }
    : undefined;
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(params.length || doc.query
      ? { parameters: [...params, ...(doc.query ?? []).map((name) => ({ name, in: 'query', required: false, ...QUERY_PARAMS[name] }))] }
      : {}),
    ...(doc.body ? { requestBody: { required: doc.body.required, content: json(ref(doc.body.schema)) } } : {}),
    responses: {
      [String(doc.response.status)]: { description: doc.response.description, ...(content ? { content } : {}) },
      ...Object.fromEntries(
        doc.errors.map((s) => [String(s), { description: ERROR_TEXT[s] ?? 'Error', content: json(ref('ErrorEnvelope')) }]),
      ),
    },
  };
}

/**
 * The OpenAPI 3.1 document of the native API: components are the wire schemas and the request
 * schemas the validators compiled; paths are the route table; the config schema comes from the adapters.
 */
export function buildOpenApiDocument(options: { version: string; configSchema: Record<string, unknown>; tokenRequired: boolean }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(ROUTE_TABLE)) {
    const key = path.replace(/:(\w+)/g, '{$1}');
    paths[key] = Object.fromEntries(Object.entries(methods).map(([method, doc]) => [method, operation(path, doc as RouteDoc)]));
  }
  paths['/mcp'] = Object.fromEntries(Object.entries(MCP_ROUTE_DOCS).map(([method, doc]) => [method, operation('/mcp', doc)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Toolbridge HTTP bridge',
      version: options.version,
      description: 'Use the AI tools installed on this machine (Codex, Claude Code, OpenCode, Ollama) over local HTTP.',
    },
    servers: [{ url: '/' }],
    components: {
      // A JSON round trip drops TypeBox's symbol keys: what is published is plain JSON Schema.
      schemas: JSON.parse(JSON.stringify({ ...SCHEMAS, Config: options.configSchema })) as Record<string, unknown>,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Required when the bridge runs with --token' } },
    },
    ...(options.tokenRequired ? { security: [{ bearerAuth: [] }] } : {}),
    paths,
  };
}
