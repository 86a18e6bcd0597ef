/** Pending approvals as the page shows them (pure; no DOM). */

import type { Approval } from '@toolbridge/core/wire';

export type Decision = 'allow' | 'allow_session' | 'deny';

/** The buttons of an approval, in the order shown, with their labels. */
export const DECISION_LABELS: ReadonlyArray<[Decision, string]> = [
  ['allow', 'Allow'],
  ['allow_session', 'Allow for this session'],
  ['deny', 'Deny'],
];

/** What the action does, line by line: the command and where it runs, the changed paths, or the tool and its input. */
export function approvalDetails(a: Approval): string[] {
  switch (a.kind) {
    case 'command':
      return [`$ ${a.command ?? ''}`, ...(a.cwd ? [`in ${a.cwd}`] : [])];
    case 'file_change':
      return (a.changes ?? []).map((c) => `${c.kind === 'add' ? 'add' : c.kind === 'delete' ? 'delete' : 'edit'} ${c.path}`);
    case 'tool_call': {
      const input = a.input === undefined ? '' : JSON.stringify(a.input);
      return [`${a.tool ?? a.title}${input ? ` ${input.length > 300 ? `${input.slice(0, 300)}…` : input}` : ''}`];
    }
  }
}

/** Seconds left before the approval is denied for want of an answer (0 once past). */
export function secondsLeft(a: Pick<Approval, 'expiresAt'>, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(a.expiresAt) - now) / 1000));
}

/** Pending approvals merged from the stream and from `GET /approvals`, oldest first, decided ones left out. */
export class PendingApprovals {
  private readonly items = new Map<string, Approval>();
  private readonly gone = new Set<string>();

  add(a: Approval): void {
    if (!this.gone.has(a.id)) this.items.set(a.id, a);
  }

  /** `GET /approvals` is the truth for what is pending now. */
  replaceAll(list: readonly Approval[]): void {
    this.items.clear();
    for (const a of list) this.add(a);
  }

  remove(id: string): void {
    this.gone.add(id);
    this.items.delete(id);
  }

  list(now = Date.now()): Approval[] {
    return [...this.items.values()].filter((a) => secondsLeft(a, now) > 0);
  }
}
