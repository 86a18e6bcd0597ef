/** The Sessions panel: the list, one session's transcript with its hand-overs, continue, fork and delete. */

import { isTokenFailure } from './api-errors.js';
import { ApiError, deleteResource, errorText, getJson } from './api.js';
import { byId, el, factList, replaceChildren } from './dom.js';
import { formatLocalTime } from './format.js';
import { byRecentUse, titleOf, transcriptEntries, turnsText, type TranscriptEntry } from './sessions.js';
import type { SessionDetail, SessionSummary } from '@toolbridge/core/wire';

export interface SessionActions {
  /** Put the session in the chat box; `fork` branches off instead of continuing. */
  onContinue(session: SessionSummary, fork: boolean): void;
  /** The session was deleted (the chat box forgets it if it held it). */
  onDeleted(id: string): void;
}

const COLUMNS = ['Title', 'Tool', 'Model', 'Turns', 'Updated'];

const tokenRefused = (e: unknown) => e instanceof ApiError && isTokenFailure(e.failure);

export class SessionsPanel {
  private sessions: SessionSummary[] = [];
  private openId?: string;
  /** `updatedAt` of the open session as shown: a reload redraws it only when it changed (keeps a pending delete confirmation). */
  private shownUpdatedAt?: string;
  /** Only the latest request of each kind may draw: an older answer arriving late is dropped. */
  private listTicket = 0;
  private openTicket = 0;

  private readonly list = byId('sessions-list');
  private readonly detail = byId('session-detail');
  private readonly status = byId('sessions-status');

  constructor(private readonly actions: SessionActions) {
    byId('sessions-reload').addEventListener('click', () => void this.load());
  }

  async load(): Promise<void> {
    const ticket = ++this.listTicket;
    try {
      const { sessions } = await getJson<{ sessions: SessionSummary[] }>('/sessions');
      if (ticket !== this.listTicket) return;
      this.sessions = byRecentUse(sessions);
      this.status.textContent = this.sessions.length ? '' : 'No sessions yet: every chat starts one.';
      this.renderList();
      const open = this.sessions.find((s) => s.id === this.openId);
      if (this.openId && !open) this.close();
      else if (open && open.updatedAt !== this.shownUpdatedAt) await this.open(open.id);
    } catch (e) {
      if (!tokenRefused(e)) this.status.textContent = `Loading sessions failed: ${errorText(e)}`;
    }
  }

  private renderList(): void {
    const now = Date.now();
    const rows = this.sessions.map((s) => {
      const open = el(
        'button',
        { type: 'button', class: 'link', 'data-focus-key': `session-${s.id}`, 'aria-current': s.id === this.openId ? 'true' : undefined },
        titleOf(s),
      );
      open.addEventListener('click', () => void this.open(s.id));
      return el(
        'tr',
        { 'data-session': s.id },
        el('td', {}, open),
        el('td', {}, s.toolId),
        el('td', {}, s.model ?? '–'),
        el('td', {}, turnsText(s.turns)),
        el('td', {}, el('time', { datetime: s.updatedAt }, formatLocalTime(s.updatedAt, now) ?? s.updatedAt)),
      );
    });
    replaceChildren(
      this.list,
      rows.length
        ? el(
            'table',
            { class: 'sessions' },
            el('caption', {}, 'Sessions, most recently used first'),
            el('thead', {}, el('tr', {}, ...COLUMNS.map((c) => el('th', { scope: 'col' }, c)))),
            el('tbody', {}, ...rows),
          )
        : null,
    );
  }

  private close(): void {
    this.openId = undefined;
    this.shownUpdatedAt = undefined;
    this.openTicket++;
    this.detail.replaceChildren();
    this.renderList();
  }

  async open(id: string): Promise<void> {
    const ticket = ++this.openTicket;
    try {
      const session = await getJson<SessionDetail>(`/sessions/${encodeURIComponent(id)}`);
      if (ticket !== this.openTicket) return;
      this.openId = id;
      this.shownUpdatedAt = session.updatedAt;
      this.renderList();
      this.renderDetail(session);
    } catch (e) {
      if (tokenRefused(e) || ticket !== this.openTicket) return;
      replaceChildren(this.detail, el('p', { class: 'error', role: 'alert' }, `Opening the session failed: ${errorText(e)}`));
    }
  }

  private renderDetail(s: SessionDetail): void {
    const now = Date.now();
    const at = (iso: string) => formatLocalTime(iso, now) ?? iso;
    const facts: Array<[string, string]> = [
      ['Id', s.id],
      ['Tool', s.toolId],
      ['Model', s.model ?? '–'],
      ['Turns', String(s.turns)],
      ['Started', at(s.createdAt)],
      ['Updated', at(s.updatedAt)],
    ];
    if (s.cwd) facts.push(['Folder', s.cwd]);
    if (s.forkedFrom) facts.push(['Forked from', s.forkedFrom]);

    const button = (text: string, primary = false) => el('button', { type: 'button', class: primary ? 'primary' : undefined }, text);
    const continueButton = button('Continue in playground', true);
    continueButton.addEventListener('click', () => this.actions.onContinue(s, false));
    const forkButton = button('Fork in playground');
    forkButton.addEventListener('click', () => this.actions.onContinue(s, true));
    const deleteButton = button('Delete…');
    const confirmBox = el('div', { class: 'confirm', role: 'group', 'aria-label': 'Confirm deletion', hidden: true });
    deleteButton.addEventListener('click', () => {
      confirmBox.hidden = false;
      confirmBox.querySelector<HTMLButtonElement>('button')?.focus();
    });
    const yes = el('button', { type: 'button', class: 'danger' }, 'Delete session');
    const no = el('button', { type: 'button' }, 'Cancel');
    no.addEventListener('click', () => {
      confirmBox.hidden = true;
      deleteButton.focus();
    });
    yes.addEventListener('click', () => void this.remove(s.id, confirmBox));
    confirmBox.append(el('p', {}, 'Delete this session, its transcript and its private folder? This cannot be undone.'), yes, ' ', no);

    replaceChildren(
      this.detail,
      el('h3', { id: 'session-title' }, titleOf(s)),
      factList(facts, 'facts session-facts'),
      el('div', { class: 'actions' }, continueButton, forkButton, deleteButton),
      confirmBox,
      el('h4', {}, 'Transcript'),
      el('ol', { class: 'transcript', 'aria-labelledby': 'session-title' }, ...transcriptEntries(s).map((e) => entry(e, at))),
    );
  }

  private async remove(id: string, confirmBox: HTMLElement): Promise<void> {
    try {
      await deleteResource(`/sessions/${encodeURIComponent(id)}`);
      this.actions.onDeleted(id);
      this.status.textContent = 'Session deleted.';
      this.close();
      await this.load();
      this.status.textContent = 'Session deleted.';
    } catch (e) {
      if (tokenRefused(e)) return;
      confirmBox.append(el('p', { class: 'error', role: 'alert' }, `Deleting failed: ${errorText(e)}`));
    }
  }
}

function entry(e: TranscriptEntry, at: (iso: string) => string): HTMLElement {
  if (e.type === 'change')
    return el(
      'li',
      { class: 'tool-change' },
      'Handed over from ',
      el('strong', {}, e.from),
      ' to ',
      el('strong', {}, e.to),
      ` · ${at(e.at)}`,
    );
  return el(
    'li',
    { class: `message role-${e.role}` },
    el(
      'div',
      { class: 'message-head' },
      el('span', { class: 'role' }, e.role),
      e.toolId ? el('span', { class: 'tag' }, e.toolId) : null,
      el('time', { datetime: e.at, class: 'muted' }, at(e.at)),
    ),
    e.text ? el('p', { class: 'message-text' }, e.text) : null,
    e.images ? el('p', { class: 'muted' }, `${e.images} ${e.images === 1 ? 'image' : 'images'} attached`) : null,
  );
}
