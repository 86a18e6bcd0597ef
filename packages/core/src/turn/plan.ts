import type { CallContext, ChatContext, ToolAdapter } from '../adapter.js';
import type { TurnApprovals } from '../approvals-broker.js';
import type { ValidChatRequest } from '../request.js';
import { planTurn, type TurnPlan } from '../sessions/plan.js';
import { TurnControl } from '../turn-control.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../wire/approvals.js';
import { scratchSpace } from '../workdir.js';
import type { ChatCallOptions, ExecutionDeps } from './deps.js';

/**
 * The plan stage of a turn, and what the turn holds until it ends: a concurrency slot, the
 * session plan (and its lock), its place among the running turns (for `interrupt`), the
 * approvals gate and a scratch directory. `open` takes them in order; `dispose` gives back
 * whatever was taken, however the turn ends.
 */
export class TurnHold {
  readonly control: TurnControl;
  /** Whether the slot was had: a deadline that passed before it was is the limiter's to explain. */
  acquired = false;
  plan?: TurnPlan;
  approvals?: TurnApprovals;
  /** Set once the session is written: a new session's folder is discarded otherwise. */
  committed = false;
  private release?: () => void;
  private unregister?: () => void;
  private readonly scratch;

  constructor(
    private readonly deps: ExecutionDeps,
    private readonly adapter: ToolAdapter,
  ) {
    this.control = new TurnControl(adapter.features.interrupt === true);
    this.scratch = scratchSpace(adapter.id);
  }

  /** Wait for a slot, plan the session and build the adapter's context. */
  async open(request: ValidChatRequest, options: ChatCallOptions, ctx: CallContext): Promise<{ plan: TurnPlan; chatCtx: ChatContext }> {
    const { deps, adapter, control } = this;
    // The wait for a slot counts against the call's deadline; callers get slots in the order they asked.
    this.release = await deps.limiters.get(adapter.id)!.acquire(ctx.signal);
    this.acquired = true;
    const plan = (this.plan = await planTurn(deps.sessions, adapter, request, options.sessionLease));
    this.unregister = deps.running.add(plan.sessionId, control);
    if (request.approvals === 'ask') {
      const gate = (this.approvals = deps.approvals.openTurn({
        sessionId: plan.sessionId,
        toolId: adapter.id,
        cwd: plan.cwd,
        timeoutMs: request.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
        ...(options.onApproval ? { onApproval: options.onApproval } : {}),
        emit: (approval) => control.push(approval),
      }));
      control.interrupt.signal.addEventListener('abort', () => gate.close('interrupted'), { once: true });
    }
    const chatCtx: ChatContext = {
      ...ctx,
      signal: AbortSignal.any([ctx.signal, control.stop.signal]),
      cwd: plan.cwd,
      scratchDir: this.scratch.get,
      interrupt: control.interrupt.signal,
      ...(this.approvals ? { approvals: this.approvals.gate } : {}),
    };
    return { plan, chatCtx };
  }

  /** The tool is done: it leaves the running turns, its approvals close, its slot goes to the next caller. */
  endRun(): void {
    this.unregister?.();
    this.unregister = undefined;
    this.approvals?.close('ended');
    this.release?.();
    this.release = undefined;
  }

  /** Give back everything still held; a new session whose turn was never written leaves no folder. */
  async dispose(): Promise<void> {
    this.unregister?.();
    this.approvals?.close('ended');
    this.control.dispose();
    this.release?.();
    await this.scratch.dispose();
    this.plan?.release();
    if (this.plan?.isNew && !this.committed) await this.deps.sessions.discard(this.plan.sessionId);
  }
}
