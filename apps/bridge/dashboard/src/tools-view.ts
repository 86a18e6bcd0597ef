/** The tool cards: state, version, models, login, usage bars. */

import { append, el, externalLink, factList, withCode, withLinksAndCode, type Child } from './dom.js';
import { clampPercent, formatLocalTime, formatPercent, resetsInText, usageLevel, windowLabel } from './format.js';
import type { ToolView, WindowView } from './tool-state.js';
import type { AuthStartResult } from '@toolbridge/core/wire';

export interface LoginState {
  pending: boolean;
  result?: AuthStartResult;
  error?: string;
}

export interface CardsInput {
  views: ToolView[];
  logins: ReadonlyMap<string, LoginState>;
  now: number;
  onLogIn(toolId: string): void;
}

/** Only a few models in the card; long lists (OpenCode has dozens) fold away. */
const MODELS_SHOWN = 5;

function modelsBlock(view: ToolView): Child {
  if (view.models.length === 0) return el('span', { class: 'muted' }, 'none reported');
  const item = (m: ToolView['models'][number]) =>
    el('li', {}, el('code', {}, m.name), m.isDefault ? ' ' : null, m.isDefault ? el('span', { class: 'tag' }, 'default') : null);
  const shown = view.models.slice(0, MODELS_SHOWN);
  const rest = view.models.slice(MODELS_SHOWN);
  return el(
    'div',
    {},
    el('ul', { class: 'models' }, ...shown.map(item)),
    rest.length
      ? el('details', { class: 'more-models' }, el('summary', {}, `${rest.length} more`), el('ul', { class: 'models' }, ...rest.map(item)))
      : null,
  );
}

function usageWindow(view: ToolView, w: WindowView, now: number): HTMLElement {
  const labelId = `usage-${view.id}-${w.name}`;
  const resetsIn = resetsInText(w.resetsAt, now);
  const at = w.resetsAt ? formatLocalTime(w.resetsAt, now) : undefined;
  const used = clampPercent(w.used);
  const fill = el('div', { class: `fill level-${usageLevel(used)}` });
  // CSSOM, not a style attribute: allowed under style-src 'self'.
  fill.style.width = `${used}%`;
  return el(
    'div',
    { class: 'window' },
    el(
      'div',
      { class: 'window-head' },
      el('span', { id: labelId, class: 'window-name' }, windowLabel(w.name)),
      el('span', { class: 'window-used' }, `${formatPercent(used)} used`),
    ),
    el(
      'div',
      {
        class: 'bar',
        role: 'progressbar',
        'aria-labelledby': labelId,
        'aria-valuemin': 0,
        'aria-valuemax': 100,
        'aria-valuenow': Math.round(used * 10) / 10,
        'aria-valuetext': [`${formatPercent(used)} used`, resetsIn].filter(Boolean).join(', '),
      },
      fill,
    ),
    el(
      'p',
      { class: 'window-foot muted' },
      `${formatPercent(w.remaining)} left`,
      at ? ` · resets ${at}` : null,
      resetsIn && at ? el('span', { class: 'resets-in' }, ` (${resetsIn.replace(/^resets /, '')})`) : resetsIn ? ` · ${resetsIn}` : null,
      w.overage ? ' · overage allowed past 100% (billed)' : null,
    ),
  );
}

function usageBlock(view: ToolView, now: number): Child {
  if (view.windows.length === 0 && !view.usageNote) return null;
  return el(
    'section',
    { class: 'usage', 'aria-label': `${view.name} usage limits` },
    el('h4', {}, 'Usage limits', view.plan ? el('span', { class: 'tag' }, `plan ${view.plan}`) : null),
    ...view.windows.map((w) => usageWindow(view, w, now)),
    view.usageNote ? el('p', { class: 'reason' }, ...withCode(view.usageNote)) : null,
  );
}

function installBlock(view: ToolView): Child {
  const hint = view.installHint;
  if (!hint || (view.state !== 'not_installed' && view.state !== 'unavailable')) return null;
  return el(
    'div',
    { class: 'install' },
    el('p', {}, ...withCode(hint.text)),
    hint.command ? el('pre', { class: 'command' }, el('code', {}, hint.command)) : null,
    hint.url ? el('p', {}, externalLink(hint.url, `Download page: ${hint.url}`)) : null,
  );
}

const LOGIN_STATUS: Record<string, string> = {
  started: 'Login started.',
  in_progress: 'A login is already running.',
  already_authenticated: 'Already logged in.',
  manual: 'Log in from a terminal.',
};

function loginBlock(view: ToolView, login: LoginState | undefined): Child {
  if (!login) return null;
  const region = el('div', { class: 'login', 'aria-live': 'polite' });
  if (login.pending) {
    region.append(el('p', {}, `Starting the ${view.name} login…`));
    return region;
  }
  if (login.error) {
    region.append(el('p', { class: 'error', role: 'alert' }, `Login failed: ${login.error}`));
    return region;
  }
  const r = login.result;
  if (!r) return null;
  let host: string | undefined;
  try {
    host = r.url ? new URL(r.url).host : undefined;
  } catch {
    host = undefined;
  }
  append(
    region,
    el('h4', {}, LOGIN_STATUS[r.status] ?? `Login: ${r.status}`),
    r.command ? el('p', {}, 'Command: ', el('code', { class: 'command-inline' }, r.command)) : null,
    r.instructions ? el('p', { class: 'instructions' }, ...withLinksAndCode(r.instructions)) : null,
    r.url ? el('p', { class: 'login-link' }, externalLink(r.url, `Open the sign-in page${host ? ` (${host})` : ''}`)) : null,
    r.output ? el('details', {}, el('summary', {}, 'Output of the login command'), el('pre', { class: 'login-output' }, r.output)) : null,
  );
  return region;
}

function card(view: ToolView, login: LoginState | undefined, now: number, onLogIn: (id: string) => void): HTMLElement {
  const nameId = `tool-${view.id}-name`;
  const facts: Array<[string, Child]> = [
    ['Type', view.type],
    ['Version', view.version ?? el('span', { class: 'muted' }, '–')],
  ];
  if (view.authLabel)
    facts.push([
      'Login',
      view.authDetail ? el('span', {}, view.authLabel, el('br'), el('span', { class: 'muted' }, view.authDetail)) : view.authLabel,
    ]);
  facts.push(...view.loadFacts);
  if (view.state !== 'not_installed') facts.push(['Models', modelsBlock(view)]);

  let action: Child = null;
  if (view.canLogIn) {
    // aria-disabled, not disabled: a disabled button drops the keyboard focus while the login starts.
    const button = el(
      'button',
      {
        type: 'button',
        class: 'primary',
        'data-focus-key': `login-${view.id}`,
        'aria-disabled': login?.pending === true ? 'true' : undefined,
      },
      'Log in',
    );
    button.addEventListener('click', () => onLogIn(view.id));
    action = el('div', { class: 'card-actions' }, button);
  }

  return el(
    'article',
    { class: `card state-${view.state}`, 'aria-labelledby': nameId, 'data-tool': view.id },
    el(
      'header',
      { class: 'card-head' },
      el('h3', { id: nameId }, view.name),
      el('span', { class: `badge badge-${view.state}` }, view.stateLabel),
    ),
    view.reason ? el('p', { class: 'reason' }, ...withCode(view.reason)) : null,
    factList(facts),
    installBlock(view),
    usageBlock(view, now),
    action,
    view.canLogIn || login?.pending ? loginBlock(view, login) : null,
  );
}

export function renderCards(container: HTMLElement, input: CardsInput): void {
  container.replaceChildren(...input.views.map((v) => card(v, input.logins.get(v.id), input.now, input.onLogIn)));
}
