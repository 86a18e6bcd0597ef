/** The pending approvals: what each action would do, and Allow / Allow for this session / Deny. */

import { failureText } from './api-errors.js';
import { ApiError, getJson, sendJson } from './api.js';
import { approvalDetails, DECISION_LABELS, PendingApprovals, secondsLeft, type Decision } from './approvals.js';
import { byId, el } from './dom.js';
import type { Approval } from '@toolbridge/core/wire';

export class ApprovalsPanel {
  private readonly pending = new PendingApprovals();
  private readonly section = byId('approvals');
  private readonly list = byId('approvals-list');
  private readonly note = byId('approvals-note');

  /** One from a streamed chat's `approval` event. */
  add(approval: Approval): void {
    this.pending.add(approval);
    this.render();
  }

  /** Those of every caller (`GET /approvals`): a chat someone else started waits here too. */
  async load(): Promise<void> {
    try {
      this.pending.replaceAll((await getJson<{ approvals: Approval[] }>('/approvals')).approvals);
      this.render();
    } catch {
      // The tool cards report a bridge that cannot be reached; nothing to add here.
    }
  }

  private async decide(approval: Approval, decision: Decision): Promise<void> {
    this.note.replaceChildren();
    try {
      await sendJson('POST', `/approvals/${encodeURIComponent(approval.id)}`, { decision });
    } catch (e) {
      // Answered elsewhere, expired, or its turn has ended: it is no longer pending either way.
      this.note.append(el('p', {}, `${approval.title}: ${e instanceof ApiError ? failureText(e.failure) : String(e)}`));
    }
    this.pending.remove(approval.id);
    this.render();
  }

  private render(): void {
    const now = Date.now();
    const items = this.pending.list(now);
    this.section.hidden = items.length === 0 && this.note.childElementCount === 0;
    this.list.replaceChildren(
      ...items.map((a) => {
        const buttons = DECISION_LABELS.filter(([d]) => a.options.includes(d)).map(([decision, label]) => {
          const button = el('button', { type: 'button', class: decision === 'deny' ? 'small' : 'small primary' }, label);
          button.addEventListener('click', () => void this.decide(a, decision));
          return button;
        });
        return el(
          'li',
          {},
          el(
            'article',
            { class: 'approval', 'aria-label': a.title },
            el(
              'p',
              {},
              el('strong', {}, a.title),
              el('span', { class: 'muted' }, ` ${a.toolId} · denied in ${secondsLeft(a, now)} s without an answer`),
            ),
            el('pre', {}, approvalDetails(a).join('\n')),
            el('div', { class: 'actions' }, ...buttons),
          ),
        );
      }),
    );
  }
}
