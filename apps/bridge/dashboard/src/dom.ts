/**
 * Building DOM from data without innerHTML: every string becomes a text node,
 * so nothing a tool or the server says can turn into markup or script.
 */

import { shortUrl, splitCode, splitUrls } from './format.js';
import { safeHttpUrl } from './tool-state.js';

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | undefined>;

/** An element with attributes and children. `style` and `on*` attributes are refused (CSP forbids them anyway). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'style' || /^on/i.test(name)) throw new Error(`el(): attribute ${name} is not allowed`);
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replace all children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A link to an http(s) URL, opened in a new tab without handing it this page; any other URL stays plain text. */
export function externalLink(url: string | undefined, text: string): HTMLElement {
  const href = safeHttpUrl(url);
  if (!href) return el('span', {}, text);
  return el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, text);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`dashboard: #${id} is missing from index.html`);
  return node as T;
}

/** A `<dl>` of label/value rows. */
export function factList(rows: ReadonlyArray<readonly [string, Child]>, className = 'facts'): HTMLDListElement {
  return el('dl', { class: className }, ...rows.map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, value))));
}

/**
 * Re-rendering replaces elements; keep the keyboard user's place by focusing
 * the new element with the same `data-focus-key`.
 */
export function keepFocus(render: () => void): void {
  const key = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
  render();
  if (!key) return;
  const again = document.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(key)}"]`);
  again?.focus();
}

/** Message text with its `backtick` spans as <code> (still text nodes only). */
export function withCode(text: string): Node[] {
  return splitCode(text).map((part) => (part.code ? el('code', {}, part.text) : document.createTextNode(part.text)));
}

/** Message text with its URLs as short links and its `backtick` spans as <code>. */
export function withLinksAndCode(text: string): Node[] {
  return splitUrls(text).flatMap((part) => (part.url ? [externalLink(part.url, shortUrl(part.url))] : withCode(part.text)));
}
