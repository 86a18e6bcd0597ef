/** The dashboard page: wires the token prompt, the tool cards, the playground, the sessions and the config panel. */

import { failureText, isTokenFailure, type ApiFailure } from './api-errors.js';
import { ApiError, getJson, handleTokenFailures, sendJson } from './api.js';
import { ConfigPanel } from './config-panel.js';
import { connectEntries } from './connect.js';
import { append, byId, el, keepFocus } from './dom.js';
import { formatAge } from './format.js';
import { Playground } from './playground.js';
import { SessionsPanel } from './sessions-panel.js';
import { clearToken, getToken, setToken } from './token.js';
import { UsagePanel } from './usage-panel.js';
import { toolView } from './tool-state.js';
import { renderCards, type LoginState } from './tools-view.js';
import type { AggregateHealth, AuthStartResult, LiveHealthRecord, Tool } from '@toolbridge/core/wire';

const AUTO_REFRESH_MS = 30_000;

const content = byId('content');
const tokenPanel = byId('token-panel');
const tokenForm = byId<HTMLFormElement>('token-form');
const tokenInput = byId<HTMLInputElement>('token-input');
const tokenMessage = byId('token-message');
const forgetToken = byId<HTMLButtonElement>('forget-token');
const refreshButton = byId<HTMLButtonElement>('refresh');
const autoRefresh = byId<HTMLInputElement>('auto-refresh');
const refreshStatus = byId('refresh-status');
const bridgeMeta = byId('bridge-meta');
const cards = byId('tools');

const state = {
  tools: [] as Tool[],
  health: new Map<string, LiveHealthRecord>(),
  logins: new Map<string, LoginState>(),
  refreshing: false,
  checkedAt: 0,
  askingForToken: false,
};

append(
  byId('connect'),
  ...connectEntries(location.origin).flatMap((e) => [
    el('dt', {}, e.title),
    el('dd', {}, el('code', {}, e.value), ' ', el('span', { class: 'hint' }, e.hint)),
  ]),
);

const playground = new Playground();
const configPanel = new ConfigPanel();
const sessionsPanel = new SessionsPanel({
  onContinue: (s, fork) => {
    playground.continueSession({ id: s.id, toolId: s.toolId, title: s.title }, fork);
    byId('playground-heading').scrollIntoView({ block: 'start' });
  },
  onDeleted: (id) => playground.options.forgetSession(id),
});
const usagePanel = new UsagePanel();
playground.onFinished = () => {
  void sessionsPanel.load();
  void usagePanel.load();
};

function render(): void {
  keepFocus(() =>
    renderCards(cards, {
      views: state.tools.map((t) => toolView(t, state.health.get(t.id))),
      logins: state.logins,
      now: Date.now(),
      onLogIn: (id) => void logIn(id),
    }),
  );
  cards.setAttribute('aria-busy', String(state.tools.length === 0 && state.refreshing));
}

function showFailure(e: unknown, what: string): void {
  if (e instanceof ApiError && isTokenFailure(e.failure)) return;
  refreshStatus.textContent = `${what} failed: ${e instanceof ApiError ? failureText(e.failure) : e instanceof Error ? e.message : String(e)}`;
}

/** Discovery first (fast, cached), then health (probes every tool); `force` asks the bridge to probe again. */
async function refresh(force: boolean): Promise<void> {
  if (state.refreshing || state.askingForToken) return;
  state.refreshing = true;
  refreshButton.disabled = true;
  refreshStatus.textContent = 'Checking tools…';
  const query = force ? '?refresh=true' : '';
  try {
    const health = getJson<AggregateHealth>(`/health${query}`);
    health.catch(() => undefined); // handled below; discovery may fail first
    const { tools } = await getJson<{ tools: Tool[] }>(`/discover${query}`);
    state.tools = tools;
    playground.setTools(tools);
    render();
    const aggregate = await health;
    state.health = new Map(aggregate.tools.map((h) => [h.toolId, h]));
    // A login that finished in the browser makes its instructions obsolete.
    for (const [id, login] of state.logins) if (state.health.get(id)?.authenticated && !login.pending) state.logins.delete(id);
    state.checkedAt = Date.now();
    bridgeMeta.textContent = `Bridge ${aggregate.version} · up ${formatAge(aggregate.uptimeMs)}`;
    render();
    refreshStatus.textContent = `Updated at ${new Date(state.checkedAt).toLocaleTimeString()}`;
  } catch (e) {
    showFailure(e, 'Refresh');
  } finally {
    state.refreshing = false;
    refreshButton.disabled = false;
  }
}

async function logIn(toolId: string): Promise<void> {
  if (state.logins.get(toolId)?.pending) return;
  state.logins.set(toolId, { pending: true });
  render();
  try {
    const result = await sendJson<AuthStartResult>('POST', `/auth/${encodeURIComponent(toolId)}`, {});
    state.logins.set(toolId, { pending: false, result });
  } catch (e) {
    if (e instanceof ApiError && isTokenFailure(e.failure)) state.logins.delete(toolId);
    else state.logins.set(toolId, { pending: false, error: e instanceof ApiError ? failureText(e.failure) : String(e) });
  }
  render();
}

/** Hide the page behind the token prompt; `why` says what the bridge answered. */
function askForToken(why: string): void {
  if (state.askingForToken) return;
  state.askingForToken = true;
  content.hidden = true;
  tokenPanel.hidden = false;
  forgetToken.hidden = true;
  tokenMessage.textContent = why;
  refreshStatus.textContent = 'Waiting for the token.';
  clearToken();
  tokenInput.value = '';
  tokenInput.focus();
}

function tokenRefused(failure: ApiFailure): void {
  askForToken(
    getToken() !== undefined
      ? `The bridge did not accept the token (${failure.message}). Enter it again.`
      : `This bridge was started with a token (--token or TOOLBRIDGE_TOKEN), so every call needs it (${failure.message}).`,
  );
}

function loadAll(): void {
  void refresh(false);
  void configPanel.load();
  void sessionsPanel.load();
  void playground.approvals.load();
  void usagePanel.load();
}

handleTokenFailures(tokenRefused);

tokenForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const token = tokenInput.value.trim();
  if (!token) {
    tokenMessage.textContent = 'Enter the token the bridge was started with.';
    tokenInput.focus();
    return;
  }
  setToken(token);
  tokenInput.value = '';
  state.askingForToken = false;
  tokenPanel.hidden = true;
  content.hidden = false;
  forgetToken.hidden = false;
  loadAll();
});

forgetToken.hidden = getToken() === undefined;
forgetToken.addEventListener('click', () => {
  askForToken('The token was removed from this tab. Enter it again to go on.');
});

refreshButton.addEventListener('click', () => {
  void refresh(true);
  void sessionsPanel.load();
  void playground.approvals.load();
});

setInterval(() => {
  if (autoRefresh.checked && !document.hidden) void refresh(false);
}, AUTO_REFRESH_MS);

// "resets in …" counts down between refreshes.
setInterval(() => {
  if (!state.refreshing && state.tools.length) render();
}, 60_000);

loadAll();
