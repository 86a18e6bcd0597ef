import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ApprovalAnswer, ApprovalGate, ApprovalRequest } from './approvals.js';
import { ApprovalDecidedError, ApprovalNotFoundError, InvalidRequestError } from './errors.js';
import { APPROVAL_DECISIONS, type Approval, type ApprovalDecision, type ApprovalRecord, type ApprovalReply } from './wire/approvals.js';

/** What a library caller's `onApproval` may answer: a decision, or one with a message for the agent. */
export type ApprovalHandlerAnswer = ApprovalDecision | { decision: ApprovalDecision; message?: string };
/** Library call option `onApproval`: decides each approval of the call (otherwise `approvals.decide`). */
export type ApprovalHandler = (approval: Approval) => ApprovalHandlerAnswer | Promise<ApprovalHandlerAnswer>;

const OPTIONS: Approval['options'] = ['allow', 'allow_session', 'deny'];
/** How many answered ids are remembered, so a late second answer gets 409 rather than 404. */
const REMEMBERED = 2_000;

interface Pending {
  approval: Approval;
  /** `decidedBy` undefined: nobody decided (the turn ended first); denied, not recorded. */
  settle(decision: ApprovalDecision, decidedBy: ApprovalRecord['decidedBy'] | undefined, message?: string): void;
}

/** What one turn's approvals need from the turn. */
export interface TurnApprovalOptions {
  sessionId: string;
  toolId: string;
  cwd: string;
  timeoutMs: number;
  onApproval?: ApprovalHandler;
  /** Show the approval to the caller (the turn's `approval` stream event). */
  emit(approval: Approval): void;
}

/** One turn's gate: what the adapter asks through, what it decided, and its end. */
export interface TurnApprovals {
  gate: ApprovalGate;
  /** Every decision so far, for `result.metadata.approvals`. */
  readonly records: ApprovalRecord[];
  /**
   * Deny what is still pending and refuse what is asked later: `interrupted` (the caller stopped
   * the turn: recorded as the caller's denial) or `ended` (the turn ended or was aborted: unrecorded).
   */
  close(why: 'interrupted' | 'ended'): void;
}

/**
 * Every approval waiting for an answer, and what each Toolbridge session allowed for the session
 * ("allow for this session" is remembered here, per command, path and tool, never by widening
 * the tool's own rules). One per registry.
 */
export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();
  /** Answered ids (true) and expired ones (false), oldest first. */
  private readonly answered = new Map<string, boolean>();
  private readonly sessionAllows = new Map<string, Set<string>>();

  /** The approvals waiting for an answer, oldest first. */
  list(): Approval[] {
    return [...this.pending.values()].map((p) => p.approval);
  }

  /** Answer a pending approval: 404 `approval_not_found` (unknown, expired), 409 `approval_decided`. */
  decide(id: string, reply: ApprovalReply): { id: string; decision: ApprovalDecision } {
    if (!APPROVAL_DECISIONS.includes(reply?.decision)) {
      throw new InvalidRequestError(`decision must be one of ${APPROVAL_DECISIONS.join(', ')}`);
    }
    if (reply.message !== undefined && typeof reply.message !== 'string') throw new InvalidRequestError('message must be a string');
    const p = typeof id === 'string' ? this.pending.get(id) : undefined;
    if (!p) {
      if (this.answered.get(id) === true) throw new ApprovalDecidedError(id);
      throw new ApprovalNotFoundError(String(id));
    }
    p.settle(reply.decision, 'caller', reply.message);
    return { id, decision: reply.decision };
  }

  /** Forget what a session allowed (the session was deleted). */
  forgetSession(sessionId: string): void {
    this.sessionAllows.delete(sessionId);
  }

  /** The gate of one turn. */
  openTurn(o: TurnApprovalOptions): TurnApprovals {
    const records: ApprovalRecord[] = [];
    const mine = new Set<Pending>();
    let closed = false;
    const ask = (request: ApprovalRequest): Promise<ApprovalAnswer> => {
      const id = `apr_${randomBytes(24).toString('base64url')}`;
      const keys = allowKeys(request, o.cwd);
      const allowed = this.sessionAllows.get(o.sessionId);
      if (keys.length > 0 && allowed && keys.every((k) => allowed.has(k))) {
        records.push({ id, kind: request.kind, title: request.title, decision: 'allow_session', decidedBy: 'session' });
        return Promise.resolve({ allow: true });
      }
      if (closed) return Promise.resolve({ allow: false, message: 'Refused by Toolbridge: the turn has ended' });
      const approval: Approval = {
        id,
        sessionId: o.sessionId,
        toolId: o.toolId,
        kind: request.kind,
        title: request.title,
        ...(request.command !== undefined ? { command: request.command } : {}),
        ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
        ...(request.changes ? { changes: request.changes } : {}),
        ...(request.tool !== undefined ? { tool: request.tool } : {}),
        ...(request.input !== undefined ? { input: request.input } : {}),
        options: [...OPTIONS],
        expiresAt: new Date(Date.now() + o.timeoutMs).toISOString(),
      };
      return new Promise<ApprovalAnswer>((resolve) => {
        const timer = setTimeout(() => entry.settle('deny', 'timeout'), o.timeoutMs);
        timer.unref?.();
        const entry: Pending = {
          approval,
          settle: (decision, decidedBy, message) => {
            if (!this.pending.delete(id)) return;
            mine.delete(entry);
            clearTimeout(timer);
            this.remember(id, decidedBy === 'caller' || decidedBy === 'session');
            if (decidedBy) records.push({ id, kind: request.kind, title: request.title, decision, decidedBy });
            if (decision === 'allow_session' && keys.length > 0) {
              const set = this.sessionAllows.get(o.sessionId) ?? new Set<string>();
              for (const k of keys) set.add(k);
              this.sessionAllows.set(o.sessionId, set);
            }
            resolve(
              decision === 'deny'
                ? {
                    allow: false,
                    message:
                      message ??
                      (decidedBy === 'timeout'
                        ? 'Refused by Toolbridge: nobody approved this action in time'
                        : 'The user denied this action'),
                  }
                : { allow: true },
            );
          },
        };
        this.pending.set(id, entry);
        mine.add(entry);
        o.emit(approval);
        if (o.onApproval) void this.askHandler(o.onApproval, entry);
      });
    };
    return {
      gate: { ask },
      records,
      close(why) {
        closed = true;
        for (const p of [...mine]) {
          if (why === 'interrupted') p.settle('deny', 'caller', 'Refused by Toolbridge: the turn was interrupted');
          else p.settle('deny', undefined, 'Refused by Toolbridge: the turn has ended');
        }
      },
    };
  }

  /** A library caller's handler decides; one that throws or answers nonsense denies. */
  private async askHandler(handler: ApprovalHandler, entry: Pending): Promise<void> {
    try {
      const answer = await handler(entry.approval);
      const reply = typeof answer === 'string' ? { decision: answer } : answer;
      if (!reply || !APPROVAL_DECISIONS.includes(reply.decision)) {
        entry.settle('deny', 'caller', 'Refused by Toolbridge: onApproval answered no valid decision');
      } else entry.settle(reply.decision, 'caller', typeof reply.message === 'string' ? reply.message : undefined);
    } catch {
      entry.settle('deny', 'caller', 'Refused by Toolbridge: onApproval failed');
    }
  }

  private remember(id: string, decided: boolean): void {
    this.answered.set(id, decided);
    if (this.answered.size > REMEMBERED) this.answered.delete(this.answered.keys().next().value!);
  }
}

/** What "allow for this session" remembers of an action: the command, each changed path, the tool. */
function allowKeys(request: ApprovalRequest, cwd: string): string[] {
  switch (request.kind) {
    case 'command':
      return request.command !== undefined ? [`command\0${request.cwd ? path.resolve(cwd, request.cwd) : cwd}\0${request.command}`] : [];
    case 'file_change':
      return (request.changes ?? []).map((c) => `path\0${path.resolve(cwd, c.path)}`);
    case 'tool_call':
      return request.tool !== undefined ? [`tool\0${request.tool}`] : [];
  }
}
