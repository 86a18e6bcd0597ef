import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, StringEnum } from './common.js';

export const UsageWindow = Type.Object({
  usedPercentage: Type.Number(),
  remainingPercentage: Type.Number(),
  resetsAt: Type.Optional(IsoTime),
  windowMinutes: Type.Optional(Type.Integer()),
  overagePermitted: Type.Optional(
    Type.Boolean({ description: 'Use goes on past 100 %, billed as overage: a used-up window does not stop the tool' }),
  ),
});
export type UsageWindow = Static<typeof UsageWindow>;

export const UsageLimits = Type.Object({
  /** `available` when windows are known; `unavailable` with a `reason` otherwise. */
  status: StringEnum(['available', 'unavailable'] as const),
  source: Type.Optional(Type.String({ examples: ['local_session'] })),
  plan: Type.Optional(Type.String()),
  windows: Type.Optional(Type.Record(Type.String(), UsageWindow)),
  observedAt: Type.Optional(IsoTime),
  reason: Type.Optional(Type.String()),
});
export type UsageLimits = Static<typeof UsageLimits>;

export const AuthStatus = StringEnum(['authenticated', 'unauthenticated', 'not_required', 'unknown'] as const);
export type AuthStatus = Static<typeof AuthStatus>;

export const WarmLoad = Type.Object(
  {
    processes: Type.Integer({ description: 'Warm processes alive now (idle and busy)' }),
    busy: Type.Integer(),
    rssBytes: Type.Integer({ description: 'Resident memory of the warm processes and their children' }),
    idleTimeoutMs: Type.Integer({ description: 'Idle time after which a warm process is shut down; 0 = warm mode off' }),
  },
  { description: 'The warm (long-lived) transport of an agent, when it has one' },
);
export type WarmLoad = Static<typeof WarmLoad>;

export const ToolLoad = Type.Object(
  {
    active: Type.Integer(),
    queued: Type.Integer(),
    maxConcurrent: Type.Integer(),
    maxQueued: Type.Integer(),
    transport: Type.Optional(StringEnum(['warm', 'spawn', 'http'] as const)),
    warm: Type.Optional(WarmLoad),
  },
  { description: 'Chats of the tool running and waiting for a slot now, the limits, and its transport (live, never cached)' },
);
export type ToolLoad = Static<typeof ToolLoad>;

/** Health record of one tool. */
export const HealthRecord = Type.Object({
  toolId: Type.String(),
  status: StringEnum(['healthy', 'unavailable'] as const),
  available: Type.Boolean(),
  authSupported: Type.Boolean(),
  authenticated: Type.Boolean(),
  authStatus: AuthStatus,
  authMethod: Type.Optional(Type.String()),
  authDetail: Type.Optional(Type.String({ description: 'What the login state rests on (which providers have credentials, ...)' })),
  authSource: Type.Optional(
    StringEnum(['check', 'chat'] as const, {
      description:
        "`check`: the login state the tool's files and variables show; `chat`: a chat its provider refused (401), which stands until a chat succeeds or the login changes",
    }),
  ),
  usageLimits: Type.Optional(UsageLimits),
  reason: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  latencyMs: Type.Number(),
  checkedAt: IsoTime,
});
export type HealthRecord = Static<typeof HealthRecord>;

/** A health record with the tool's live load. */
export const LiveHealthRecord = Type.Composite([HealthRecord, Type.Object({ load: ToolLoad })]);
export type LiveHealthRecord = Static<typeof LiveHealthRecord>;

export const AggregateHealth = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  uptimeMs: Type.Number(),
  tools: Type.Array(LiveHealthRecord),
});
export type AggregateHealth = Static<typeof AggregateHealth>;

/** Auth start result (POST /auth/:toolId). */
export const AuthStartResult = Type.Object({
  toolId: Type.String(),
  status: StringEnum(['started', 'already_authenticated', 'manual', 'in_progress'] as const),
  authenticated: Type.Boolean(),
  command: Type.String(),
  instructions: Type.String(),
  output: Type.String(),
  url: Type.Optional(Type.String()),
  checkedAt: IsoTime,
});
export type AuthStartResult = Static<typeof AuthStartResult>;
