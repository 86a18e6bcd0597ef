// Typecheck only (root tsconfig.json; not built, not a test): the page's own view of
// the wire (types.ts) must accept what the bridge sends, so a change to the library's
// response types that the page cannot read fails `pnpm typecheck`.
import type { AuthStartResult as SentAuthStart, LiveHealthRecord, Tool, wire } from '@toolbridge/core';
import type {
  Activity,
  AggregateHealth,
  Approval,
  AuthStartResult,
  ChatDone,
  DiscoveredTool,
  ErrorBody,
  HealthRecord,
  SessionDetail,
  SessionSummary,
  UsageSummary,
  WindowSnapshot,
} from './types.js';

export type WireChecks = [
  Assignable<LiveHealthRecord, HealthRecord>,
  Assignable<{ status: 'ok'; version: string; uptimeMs: number; tools: LiveHealthRecord[] }, AggregateHealth>,
  Assignable<Tool, DiscoveredTool>,
  Assignable<SentAuthStart, AuthStartResult>,
  Assignable<wire.ChatResponse, ChatDone>,
  Assignable<wire.FallbackChatResponse, ChatDone>,
  Assignable<wire.Activity, Activity>,
  Assignable<wire.SessionSummary, SessionSummary>,
  Assignable<wire.SessionDetail, SessionDetail>,
  Assignable<wire.ErrorEnvelope['error'], ErrorBody>,
  Assignable<wire.UsageSummary, UsageSummary>,
  Assignable<wire.WindowSnapshot, WindowSnapshot>,
  Assignable<wire.Approval, Approval>,
];

type Assignable<From, To> = From extends To ? true : never;
const wireChecks: WireChecks = [true, true, true, true, true, true, true, true, true, true, true, true, true];
void wireChecks;
