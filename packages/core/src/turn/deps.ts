import type { ToolAdapter } from '../adapter.js';
import type { ApprovalBroker, ApprovalHandler } from '../approvals-broker.js';
import type { CallScope } from '../call-scope.js';
import type { CallOptions } from '../context.js';
import type { Discovery } from '../discovery.js';
import type { ConcurrencyLimiter } from '../limiter.js';
import type { SessionLease } from '../sessions/plan.js';
import type { SessionStore } from '../sessions/store.js';
import type { ToolStates } from '../tool-state.js';
import type { RunningTurns } from '../turn-control.js';
import type { UsageLedger } from '../usage-ledger.js';

/** Options of one chat turn. */
export interface ChatCallOptions extends CallOptions {
  /** A session the caller already holds (a fallback chat holds its session across attempts). */
  sessionLease?: SessionLease;
  /**
   * With `approvals: "ask"`: decides each approval of the call. Without it an approval waits for
   * an answer through the registry's `approvals.decide` (the bridge's `POST /approvals/:id`).
   */
  onApproval?: ApprovalHandler;
}

/** What the stages of a turn use of the registry. */
export interface ExecutionDeps {
  adapterOf(toolId: string): ToolAdapter;
  scope: CallScope;
  limiters: ReadonlyMap<string, ConcurrencyLimiter>;
  states: ToolStates;
  sessions: SessionStore;
  discovery: Discovery;
  approvals: ApprovalBroker;
  running: RunningTurns;
  /** Where every finished chat is recorded (after it has answered: never before its first byte). */
  ledger?: UsageLedger;
  /** The transport a failed chat would have used (a result names its own). */
  transportOf?(toolId: string): string | undefined;
}
