import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../limits.js';
import { IsoTime, StringEnum } from './common.js';
import { UsageWindow } from './health.js';

/** How a fallback chat orders its providers. */
export const ROUTE_POLICIES = ['in-order', 'headroom'] as const;
export const RoutePolicy = StringEnum(ROUTE_POLICIES, {
  description:
    '`in-order` (default): as given. `headroom`: the tool with the most left of its tightest known usage window first (no known windows counts as 50 %); ties keep the given order',
});
export type RoutePolicy = Static<typeof RoutePolicy>;

/** Fields of a fallback chat request that choose the order and whether to wait for a reset. */
export const fallbackRouteFields = {
  route: Type.Optional(RoutePolicy),
  waitForQuota: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: LIMITS.maxQuotaWaitMs,
      description:
        'When every provider is skipped for a used-up window or a rate limit and the earliest known reset is within this many ms, wait for it (plus at most 2 s) and then run, instead of answering 429',
    }),
  ),
};

/** The order a fallback chat tried its providers in, and why. */
export const RouteInfo = Type.Object({
  policy: RoutePolicy,
  order: Type.Array(Type.String(), { description: 'Tool ids in the order they were tried' }),
});
export type RouteInfo = Static<typeof RouteInfo>;

/** A fallback chat waiting for a usage window to reset (GET /queue). */
export const QueueEntry = Type.Object({
  id: Type.String(),
  providers: Type.Array(Type.String()),
  until: IsoTime,
});
export type QueueEntry = Static<typeof QueueEntry>;

export const QueueResponse = Type.Object({ waiting: Type.Array(QueueEntry) });
export type QueueResponse = Static<typeof QueueResponse>;

export const USAGE_GROUPINGS = ['tool', 'day', 'model'] as const;
export const UsageGrouping = StringEnum(USAGE_GROUPINGS);
export type UsageGrouping = Static<typeof UsageGrouping>;

/** One finished chat, as the usage ledger keeps it (never the prompt or the answer). */
export const UsageRecord = Type.Object({
  at: IsoTime,
  toolId: Type.String(),
  model: Type.Optional(Type.String()),
  transport: Type.Optional(Type.String({ examples: ['warm', 'spawn', 'http'] })),
  outcome: StringEnum(['succeeded', 'failed'] as const),
  errorCode: Type.Optional(Type.String()),
  durationMs: Type.Integer(),
  inputTokens: Type.Optional(Type.Integer()),
  outputTokens: Type.Optional(Type.Integer()),
  cachedInputTokens: Type.Optional(Type.Integer()),
  costUsd: Type.Optional(Type.Number()),
});
export type UsageRecord = Static<typeof UsageRecord>;

export const UsageGroup = Type.Object({
  key: Type.String({ description: 'The tool id, the day (YYYY-MM-DD, UTC) or the model ("unknown" when not reported)' }),
  chats: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
  cachedInputTokens: Type.Integer(),
  costUsd: Type.Optional(Type.Number({ description: 'Sum of the costs the tools reported; absent when none did' })),
});
export type UsageGroup = Static<typeof UsageGroup>;

/** GET /usage. */
export const UsageSummary = Type.Object({
  since: IsoTime,
  until: IsoTime,
  groupBy: UsageGrouping,
  groups: Type.Array(UsageGroup),
});
export type UsageSummary = Static<typeof UsageSummary>;

/** A tool's usage windows as they were at one moment; kept each time they change. */
export const WindowSnapshot = Type.Object({
  toolId: Type.String(),
  at: IsoTime,
  windows: Type.Record(Type.String(), UsageWindow),
});
export type WindowSnapshot = Static<typeof WindowSnapshot>;

/** GET /usage/windows. */
export const WindowSnapshots = Type.Object({ snapshots: Type.Array(WindowSnapshot) });
export type WindowSnapshots = Static<typeof WindowSnapshots>;
