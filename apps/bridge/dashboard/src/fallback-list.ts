/** The fallback list of the playground: tick tools, move them up and down; the order is the order they are tried. */

import { el, keepFocus } from './dom.js';
import type { Tool } from '@toolbridge/core/wire';

export interface FallbackListInput {
  tools: readonly Tool[];
  order: readonly string[];
  /** Ticked tools; the checkboxes change it in place. */
  included: Set<string>;
  onMove(index: number, delta: number): void;
}

export function renderFallbackList(list: HTMLOListElement, input: FallbackListInput): void {
  const { tools, order, included, onMove } = input;
  keepFocus(() => {
    const items = order.map((id, index) => {
      const tool = tools.find((t) => t.id === id)!;
      const checkboxId = `fallback-${id}`;
      const box = el('input', { type: 'checkbox', id: checkboxId, 'data-focus-key': `use-${id}`, checked: included.has(id) });
      box.addEventListener('change', () => {
        if (box.checked) included.add(id);
        else included.delete(id);
      });
      const move = (delta: number, label: string, text: string) => {
        const atEnd = delta < 0 ? index === 0 : index === order.length - 1;
        const b = el(
          'button',
          {
            type: 'button',
            class: 'small',
            'aria-label': `Move ${tool.name} ${label}`,
            'data-focus-key': `${label}-${id}`,
            disabled: atEnd,
          },
          text,
        );
        b.addEventListener('click', () => onMove(index, delta));
        return b;
      };
      return el(
        'li',
        {},
        el('label', { for: checkboxId }, box, ' ', tool.name, tool.available ? null : el('span', { class: 'muted' }, ' (not available)')),
        el('span', { class: 'move' }, move(-1, 'up', '↑'), move(1, 'down', '↓')),
      );
    });
    list.replaceChildren(...items);
  });
}
