import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../limits.js';
import { IsoTime, StringEnum, StringOrArray, TaggedUnion, Usage } from './common.js';
import { ToolType } from './tool.js';
import { RouteInfo } from './usage.js';
import { approvalRequestFields } from './approvals.js';

export const ChatRole = StringEnum(['system', 'user', 'assistant'] as const);
export type ChatRole = Static<typeof ChatRole>;

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() }, { additionalProperties: false });
export type TextPart = Static<typeof TextPart>;

/**
 * An image: base64 `data` with its `mediaType`, or (library only) a local file `path`.
 * Remote URLs are refused rather than fetched. Which fields go together is checked by request validation.
 */
export const ImagePart = Type.Object(
  {
    type: Type.Literal('image'),
    data: Type.Optional(Type.String({ minLength: 1, description: 'Base64 of the image bytes' })),
    mediaType: Type.Optional(StringEnum(IMAGE_MEDIA_TYPES)),
    path: Type.Optional(Type.String({ minLength: 1, description: 'Library only: a local image file (the bridge refuses it)' })),
    url: Type.Optional(Type.String({ description: 'Accepted only to be refused with a clear message: remote images are never fetched' })),
  },
  { additionalProperties: false },
);
export type ImagePart = Static<typeof ImagePart>;

export const ContentPart = TaggedUnion([TextPart, ImagePart]);
export type ContentPart = TextPart | ImagePart;

export const ChatMessage = Type.Object(
  {
    role: ChatRole,
    content: StringOrArray(ContentPart, { minItems: 1, maxItems: 64 }),
  },
  { additionalProperties: false },
);
export type ChatMessage = Static<typeof ChatMessage>;

export const PERMISSION_LEVELS = ['read-only', 'workspace-write', 'full'] as const;
export const PermissionLevel = StringEnum(PERMISSION_LEVELS, {
  description: 'What an agent may do: read-only (default), workspace-write (write inside cwd and additionalDirs), full',
});
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

export const ResponseFormat = TaggedUnion([
  Type.Object(
    {
      type: Type.Literal('json_schema'),
      schema: Type.Record(Type.String(), Type.Unknown(), { description: 'The JSON Schema the answer must match' }),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
    },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('json') }, { additionalProperties: false }),
]);
export type ResponseFormat = { type: 'json_schema'; schema: Record<string, unknown>; name?: string } | { type: 'json' };

export const SESSION_ID_PATTERN = '^tbs_[A-Za-z0-9_-]{8,64}$';

/** The fields of a chat request, shared by the library and the bridge's bodies. */
export const chatRequestFields = {
  messages: Type.Array(ChatMessage, { minItems: 1, maxItems: 1000 }),
  model: Type.Optional(Type.String({ minLength: 1 })),
  cwd: Type.Optional(
    Type.String({ minLength: 1, description: 'Working directory for agents (must exist); a private one per session when absent' }),
  ),
  additionalDirs: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), { maxItems: LIMITS.maxAdditionalDirs, description: 'More directories the agent may use' }),
  ),
  permissions: Type.Optional(PermissionLevel),
  maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  responseFormat: Type.Optional(ResponseFormat),
  sessionId: Type.Optional(
    Type.String({ pattern: SESSION_ID_PATTERN, description: 'Continue this session: send only the new message(s)' }),
  ),
  fork: Type.Optional(Type.Boolean({ description: 'With sessionId: start a new session from that point; the original is unchanged' })),
  ...approvalRequestFields,
};

export const ChatRequest = Type.Object(chatRequestFields, { additionalProperties: false });
/** What a caller asks of one tool. */
export type ChatRequest = Static<typeof ChatRequest>;

export const ACTIVITY_STATUSES = ['started', 'updated', 'completed', 'failed'] as const;
const status = StringEnum(ACTIVITY_STATUSES);
const base = { id: Type.String(), status, title: Type.String() };

/** One step an agent took, normalised across tools; updates of one step share its `id`. */
export const Activity = Type.Union([
  Type.Object({
    ...base,
    kind: Type.Literal('command'),
    command: Type.String(),
    exitCode: Type.Optional(Type.Integer()),
    outputTail: Type.Optional(Type.String()),
  }),
  Type.Object({
    ...base,
    kind: Type.Literal('file_change'),
    changes: Type.Array(Type.Object({ path: Type.String(), kind: StringEnum(['add', 'update', 'delete'] as const) })),
  }),
  Type.Object({
    ...base,
    kind: Type.Literal('tool_call'),
    name: Type.String(),
    server: Type.Optional(Type.String({ description: 'MCP server, for MCP tools' })),
    input: Type.Optional(Type.String()),
    output: Type.Optional(Type.String()),
  }),
  Type.Object({ ...base, kind: Type.Literal('web_search'), query: Type.String() }),
  Type.Object({ ...base, kind: Type.Literal('reasoning'), text: Type.String() }),
  Type.Object({ ...base, kind: Type.Literal('plan'), items: Type.Array(Type.Object({ text: Type.String(), done: Type.Boolean() })) }),
  Type.Object({
    ...base,
    kind: Type.Literal('other'),
    rawType: Type.String({ description: "The tool's own event or item type" }),
    detail: Type.Optional(Type.String()),
  }),
]);
export type Activity = Static<typeof Activity>;
export type ActivityKind = Activity['kind'];
export const ACTIVITY_KINDS: readonly ActivityKind[] = ['command', 'file_change', 'tool_call', 'web_search', 'reasoning', 'plan', 'other'];
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];

export const AssistantMessage = Type.Object({ role: Type.Literal('assistant'), content: Type.String() });

/** Chat response from one tool (POST /chat/:toolId). */
export const ChatResponse = Type.Object({
  toolId: Type.String(),
  type: ToolType,
  model: Type.String(),
  sessionId: Type.Optional(
    Type.String({
      description:
        "Toolbridge's session id (tbs_…): send it back to continue the conversation (absent only if the session could not be saved)",
    }),
  ),
  result: Type.Object({
    message: AssistantMessage,
    usage: Usage,
    object: Type.Optional(Type.Unknown({ description: 'The parsed answer, when a responseFormat was asked for' })),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Tool-specific facts: transport, permissions applied, cost, ...' }),
    ),
  }),
  activities: Type.Optional(Type.Array(Activity, { description: "Agents: each step's final state" })),
  latencyMs: Type.Number(),
});
export type ChatResponse = Static<typeof ChatResponse>;

export const ATTEMPT_REASONS = [
  'timeout',
  'unavailable',
  'busy',
  'unauthenticated',
  'rate_limited',
  'quota_exceeded',
  'provider_execution_failed',
  'schema_mismatch',
  'unsupported',
  'not_found',
  'invalid_request',
  'aborted',
  'internal_error',
] as const;
export type AttemptReason = (typeof ATTEMPT_REASONS)[number];

export const Attempt = Type.Object({
  toolId: Type.String(),
  tryIndex: Type.Integer({ description: 'Zero-based retry counter for that tool' }),
  stage: StringEnum(['preflight', 'execution'] as const),
  outcome: StringEnum(['skipped', 'failed', 'succeeded'] as const),
  reason: Type.Optional(StringEnum(ATTEMPT_REASONS)),
  message: Type.Optional(Type.String()),
  latencyMs: Type.Number(),
});
export type Attempt = Static<typeof Attempt>;
export type AttemptStage = Attempt['stage'];
export type AttemptOutcome = Attempt['outcome'];

export const FallbackChatResponse = Type.Composite([
  ChatResponse,
  Type.Object({
    fallbackUsed: Type.Boolean({
      description: "A tool other than the first one tried answered (with a sessionId, the session's own tool is tried first)",
    }),
    attempts: Type.Array(Attempt),
    route: RouteInfo,
  }),
]);
export type FallbackChatResponse = Static<typeof FallbackChatResponse>;

export { IsoTime };
