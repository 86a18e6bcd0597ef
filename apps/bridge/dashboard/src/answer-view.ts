/** The answer panel's result area: facts, the JSON object, token usage, attempts, errors. */

import { attemptRow, summarizeDone } from './chat.js';
import { el, factList, replaceChildren } from './dom.js';
import type { Attempt } from '@toolbridge/core/wire';
import type { ChatDone } from './chat.js';

const ATTEMPT_COLUMNS = ['Tool', 'Try', 'Stage', 'Outcome', 'Reason', 'Latency'];

export function attemptsTable(attempts: Attempt[]): HTMLElement {
  return el(
    'table',
    { class: 'attempts' },
    el('caption', {}, 'Attempts, in order'),
    el('thead', {}, el('tr', {}, ...ATTEMPT_COLUMNS.map((c) => el('th', { scope: 'col' }, c)))),
    el(
      'tbody',
      {},
      ...attempts.map((a) => el('tr', { class: `outcome-${a.outcome}` }, ...attemptRow(a).map((cell) => el('td', {}, cell)))),
    ),
  );
}

/**
 * The result of a finished chat. `onContinue` (when given) offers to continue the conversation
 * the answer started or went on with.
 */
export function renderDone(result: HTMLElement, answer: HTMLElement, done: ChatDone, onContinue?: () => void): void {
  const summary = summarizeDone(done);
  if (!answer.textContent && summary.answer) answer.textContent = summary.answer;
  let action: HTMLElement | null = null;
  if (done.sessionId && onContinue) {
    const button = el('button', { type: 'button' }, 'Continue this conversation');
    button.addEventListener('click', onContinue);
    action = el('div', { class: 'actions' }, button);
  }
  replaceChildren(
    result,
    factList(summary.facts, 'facts result-facts'),
    summary.object !== undefined
      ? el('div', { class: 'object' }, el('h4', {}, 'JSON object'), el('pre', { id: 'chat-object' }, summary.object))
      : null,
    summary.usage.length ? el('div', {}, el('h4', {}, 'Token usage'), factList(summary.usage, 'facts usage-facts')) : null,
    summary.attempts.length ? attemptsTable(summary.attempts) : null,
    action,
  );
}

/** An error text (the envelope's code and message), with the attempts that led to it. */
export function renderError(error: HTMLElement, result: HTMLElement, text: string, attempts?: Attempt[], details?: string[]): void {
  replaceChildren(
    error,
    el('p', {}, text),
    details?.length ? el('ul', { class: 'error-details' }, ...details.map((d) => el('li', {}, d))) : null,
  );
  if (attempts?.length) result.append(attemptsTable(attempts));
}
