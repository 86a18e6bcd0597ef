/** The playground: one tool or an ordered fallback list, a prompt, the answer streamed in. */

import { failureText, isTokenFailure } from './api-errors.js';
import { ApiError, postStream } from './api.js';
import { attemptRow, chatCall, moveItem, summarizeDone } from './chat.js';
import { byId, el, factList, keepFocus, replaceChildren } from './dom.js';
import type { Attempt, ChatDone, DiscoveredTool, ErrorBody } from './types.js';

const ATTEMPT_COLUMNS = ['Tool', 'Try', 'Stage', 'Outcome', 'Reason', 'Latency'];

export class Playground {
  private tools: DiscoveredTool[] = [];
  /** Fallback order and which tools are in it; kept across refreshes. */
  private order: string[] = [];
  private included = new Set<string>();
  private controller?: AbortController;

  private readonly form = byId<HTMLFormElement>('chat-form');
  private readonly toolSelect = byId<HTMLSelectElement>('chat-tool');
  private readonly singlePicker = byId('single-picker');
  private readonly fallbackPicker = byId<HTMLFieldSetElement>('fallback-picker');
  private readonly fallbackList = byId<HTMLOListElement>('fallback-list');
  private readonly model = byId<HTMLInputElement>('chat-model');
  private readonly modelList = byId<HTMLDataListElement>('chat-models');
  private readonly prompt = byId<HTMLTextAreaElement>('chat-prompt');
  private readonly send = byId<HTMLButtonElement>('chat-send');
  private readonly stop = byId<HTMLButtonElement>('chat-stop');
  private readonly status = byId('chat-status');
  private readonly answer = byId('chat-answer');
  private readonly error = byId('chat-error');
  private readonly result = byId('chat-result');

  constructor() {
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.run();
    });
    this.prompt.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.form.requestSubmit();
      }
    });
    this.stop.addEventListener('click', () => this.controller?.abort());
    for (const radio of this.form.querySelectorAll<HTMLInputElement>('input[name="mode"]'))
      radio.addEventListener('change', () => this.showMode());
    this.toolSelect.addEventListener('change', () => this.fillModels());
    this.showMode();
  }

  private get mode(): 'single' | 'fallback' {
    return this.form.querySelector<HTMLInputElement>('input[name="mode"]:checked')?.value === 'fallback' ? 'fallback' : 'single';
  }

  /** New discovery results: keep the user's picks, add tools not seen before. */
  setTools(tools: DiscoveredTool[]): void {
    const firstTime = this.tools.length === 0;
    this.tools = tools;
    const ids = tools.map((t) => t.id);
    for (const t of tools) {
      if (!this.order.includes(t.id)) {
        this.order.push(t.id);
        if (t.available) this.included.add(t.id);
      }
    }
    this.order = this.order.filter((id) => ids.includes(id));

    const selected = this.toolSelect.value;
    this.toolSelect.replaceChildren(...tools.map((t) => el('option', { value: t.id }, t.available ? t.name : `${t.name} (not available)`)));
    const preferred = ids.includes(selected) && !firstTime ? selected : (tools.find((t) => t.available)?.id ?? ids[0] ?? '');
    this.toolSelect.value = preferred;
    this.fillModels();
    this.renderFallbackList();
  }

  /** Model suggestions of the picked tool; a fallback list has no one tool to suggest for. */
  private fillModels(): void {
    if (this.mode === 'fallback') {
      this.modelList.replaceChildren();
      this.model.placeholder = 'each tool’s default';
      return;
    }
    const tool = this.tools.find((t) => t.id === this.toolSelect.value);
    this.modelList.replaceChildren(...(tool?.models ?? []).map((m) => el('option', { value: m })));
    this.model.placeholder = tool?.defaultModel ? `default: ${tool.defaultModel}` : 'the tool’s default';
  }

  private showMode(): void {
    const fallback = this.mode === 'fallback';
    this.singlePicker.hidden = fallback;
    this.fallbackPicker.hidden = !fallback;
    this.fillModels();
  }

  private renderFallbackList(): void {
    keepFocus(() => {
      const items = this.order.map((id, index) => {
        const tool = this.tools.find((t) => t.id === id)!;
        const checkboxId = `fallback-${id}`;
        const box = el('input', { type: 'checkbox', id: checkboxId, 'data-focus-key': `use-${id}`, checked: this.included.has(id) });
        box.addEventListener('change', () => {
          if (box.checked) this.included.add(id);
          else this.included.delete(id);
        });
        const move = (delta: number, label: string, text: string) => {
          const atEnd = delta < 0 ? index === 0 : index === this.order.length - 1;
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
          b.addEventListener('click', () => {
            this.order = moveItem(this.order, index, delta);
            this.renderFallbackList();
          });
          return b;
        };
        return el(
          'li',
          {},
          el('label', { for: checkboxId }, box, ' ', tool.name, tool.available ? null : el('span', { class: 'muted' }, ' (not available)')),
          el('span', { class: 'move' }, move(-1, 'up', '↑'), move(1, 'down', '↓')),
        );
      });
      this.fallbackList.replaceChildren(...items);
    });
  }

  private setBusy(busy: boolean): void {
    this.send.disabled = busy;
    this.stop.disabled = !busy;
    this.answer.setAttribute('aria-busy', String(busy));
  }

  private showError(text: string, attempts?: Attempt[]): void {
    replaceChildren(this.error, el('p', {}, text));
    if (attempts?.length) this.result.append(this.attemptsTable(attempts));
  }

  private attemptsTable(attempts: Attempt[]): HTMLElement {
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

  private showDone(done: ChatDone): void {
    const summary = summarizeDone(done);
    if (!this.answer.textContent && summary.answer) this.answer.textContent = summary.answer;
    replaceChildren(
      this.result,
      factList(summary.facts, 'facts result-facts'),
      summary.usage.length ? el('div', {}, el('h4', {}, 'Token usage'), factList(summary.usage, 'facts usage-facts')) : null,
      summary.attempts.length ? this.attemptsTable(summary.attempts) : null,
    );
  }

  private async run(): Promise<void> {
    if (this.controller) return;
    const call = chatCall({
      mode: this.mode,
      toolId: this.toolSelect.value,
      providers: this.order.filter((id) => this.included.has(id)),
      prompt: this.prompt.value,
      model: this.model.value,
    });
    this.answer.replaceChildren();
    this.error.replaceChildren();
    this.result.replaceChildren();
    if ('error' in call) {
      this.showError(call.error);
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    this.setBusy(true);
    this.status.textContent = 'Waiting for the answer…';
    const attempts: Attempt[] = [];
    let finished = false;
    try {
      await postStream(call.path, call.body, controller.signal, (message) => {
        const data = JSON.parse(message.data) as unknown;
        switch (message.event) {
          case 'attempt': {
            const a = data as Attempt;
            attempts.push(a);
            this.status.textContent =
              a.outcome === 'succeeded' ? `${a.toolId} is answering…` : `${a.toolId}: ${a.outcome}${a.reason ? ` (${a.reason})` : ''}`;
            break;
          }
          case 'delta':
            this.answer.append((data as { text: string }).text);
            this.status.textContent = 'Answering…';
            break;
          case 'progress': {
            const item = (data as { item?: { kind?: string; text?: string } }).item;
            this.status.textContent = `Working: ${item?.kind ?? 'step'}${item?.text ? ` – ${item.text.slice(0, 120)}` : ''}`;
            break;
          }
          case 'done':
            finished = true;
            this.showDone(data as ChatDone);
            this.status.textContent = 'Done.';
            break;
          case 'error':
            finished = true;
            this.status.textContent = 'Failed.';
            this.showError(failureText((data as { error: ErrorBody }).error), attempts);
            break;
        }
      });
      if (!finished) {
        this.status.textContent = 'Failed.';
        this.showError('the answer ended without a result', attempts);
      }
    } catch (e) {
      if (controller.signal.aborted) {
        this.status.textContent = 'Stopped. The tool’s process was ended.';
      } else if (e instanceof ApiError) {
        this.status.textContent = 'Failed.';
        // The token prompt explains a refused token; anything else belongs here.
        if (!isTokenFailure(e.failure)) this.showError(failureText(e.failure), e.failure.attempts);
      } else {
        this.status.textContent = 'Failed.';
        this.showError(`the connection to the bridge failed (${e instanceof Error ? e.message : String(e)})`);
      }
    } finally {
      this.controller = undefined;
      this.setBusy(false);
    }
  }
}
