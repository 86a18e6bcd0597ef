/** The activity timeline of a chat: what the agent did, one row per step, updated in place. */

import { activityView, timelineSummary, type ActivityTimeline } from './activity.js';
import { el, factList } from './dom.js';

const CHANGE_SIGNS: Record<string, string> = { add: 'added', update: 'updated', delete: 'deleted' };

function step(a: ReturnType<typeof activityView>): HTMLElement {
  return el(
    'li',
    { class: `step kind-${a.kind} status-${a.status}`, 'data-step': a.id },
    el(
      'div',
      { class: 'step-head' },
      el('span', { class: 'step-kind' }, a.kindLabel),
      el('span', { class: 'step-title' }, a.title),
      el('span', { class: `step-status status-${a.status}` }, a.statusLabel),
    ),
    a.facts.length ? factList(a.facts, 'facts step-facts') : null,
    ...a.blocks.map((b) => el('div', { class: 'step-block' }, el('span', { class: 'muted' }, b.label), el('pre', {}, b.text))),
    a.changes.length
      ? el(
          'ul',
          { class: 'changes' },
          ...a.changes.map((c) =>
            el('li', {}, el('code', {}, c.path), ' ', el('span', { class: `tag change-${c.kind}` }, CHANGE_SIGNS[c.kind] ?? c.kind)),
          ),
        )
      : null,
    a.plan.length
      ? el(
          'ul',
          { class: 'plan' },
          ...a.plan.map((item) => el('li', { class: item.done ? 'done' : 'todo' }, item.done ? '☑ ' : '☐ ', item.text)),
        )
      : null,
    a.text ? el('p', { class: 'step-text' }, a.text) : null,
  );
}

/** Draw the timeline into `container` (empty when the chat reported no steps). */
export function renderTimeline(container: HTMLElement, timeline: ActivityTimeline): void {
  if (timeline.size === 0) {
    container.replaceChildren();
    return;
  }
  const items = timeline.items;
  container.replaceChildren(
    el('h4', {}, 'Activity ', el('span', { class: 'muted' }, `(${timelineSummary(items)})`)),
    el('ol', { class: 'timeline' }, ...items.map((a) => step(activityView(a)))),
  );
}
