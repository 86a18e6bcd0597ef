/** The config panel: a form built from the Config schema in /openapi.json, saved with PUT /config. */

import { isTokenFailure } from './api-errors.js';
import { ApiError, getJson, sendJson } from './api.js';
import { configBody, configFields, keyNamedIn, toInputText, type ConfigField } from './config-form.js';
import { byId, el, replaceChildren, withCode } from './dom.js';

type Config = Record<string, unknown>;

export class ConfigPanel {
  private fields: ConfigField[] = [];
  private readonly form = byId<HTMLFormElement>('config-form');
  private readonly container = byId('config-fields');
  private readonly alert = byId('config-error');
  private readonly status = byId('config-status');
  private readonly save = byId<HTMLButtonElement>('config-save');

  constructor() {
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit();
    });
    byId('config-reload').addEventListener('click', () => void this.load());
  }

  private input(key: string): HTMLInputElement | HTMLSelectElement | undefined {
    return this.form.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${CSS.escape(key)}"]`) ?? undefined;
  }

  private control(field: ConfigField, value: unknown): HTMLElement {
    const id = `config-${field.key}`;
    const hintId = `${id}-hint`;
    const describedBy = field.description || field.constraint ? `${hintId} config-error` : 'config-error';
    const common = { id, name: field.key, 'aria-describedby': describedBy };
    let control: HTMLInputElement | HTMLSelectElement;
    if (field.kind === 'select' || field.kind === 'boolean') {
      const options = field.kind === 'boolean' ? ['true', 'false'] : (field.options ?? []);
      control = el('select', common, el('option', { value: '' }, '(not set)'), ...options.map((o) => el('option', { value: o }, o)));
    } else {
      const numeric = field.kind === 'integer' || field.kind === 'number';
      // type=text for numbers: a number input would swallow "abc" as empty instead of letting the API name the mistake.
      control = el('input', {
        ...common,
        type: field.kind === 'url' ? 'url' : 'text',
        inputmode: numeric ? (field.kind === 'integer' ? 'numeric' : 'decimal') : undefined,
        autocomplete: 'off',
        spellcheck: 'false',
        placeholder: '(not set)',
      });
    }
    control.value = toInputText(value);
    control.addEventListener('input', () => control.removeAttribute('aria-invalid'));
    return el(
      'div',
      { class: 'field' },
      el('label', { for: id }, el('code', {}, field.key)),
      control,
      field.description || field.constraint
        ? el(
            'p',
            { id: hintId, class: 'hint' },
            ...withCode([field.description, field.constraint ? `Expects: ${field.constraint}.` : undefined].filter(Boolean).join(' ')),
          )
        : null,
    );
  }

  private render(config: Config): void {
    const groups = new Map<string, ConfigField[]>();
    for (const f of this.fields) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
    replaceChildren(
      this.container,
      ...[...groups].map(([group, fields]) =>
        el('fieldset', { class: 'config-group' }, el('legend', {}, group), ...fields.map((f) => this.control(f, config[f.key]))),
      ),
    );
  }

  private clearMessages(): void {
    this.alert.replaceChildren();
    this.status.textContent = '';
    for (const node of this.form.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
  }

  private showError(e: unknown): void {
    if (e instanceof ApiError && isTokenFailure(e.failure)) return;
    const message =
      e instanceof ApiError ? e.failure.message : `the bridge could not be reached (${e instanceof Error ? e.message : String(e)})`;
    replaceChildren(this.alert, el('p', {}, message));
    const key = keyNamedIn(
      message,
      this.fields.map((f) => f.key),
    );
    const input = key ? this.input(key) : undefined;
    if (input) {
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    }
  }

  async load(): Promise<void> {
    this.clearMessages();
    try {
      const [openapi, current] = await Promise.all([
        getJson<{ components?: { schemas?: { Config?: unknown } } }>('/openapi.json'),
        getJson<{ config: Config }>('/config'),
      ]);
      this.fields = configFields(openapi.components?.schemas?.Config);
      this.render(current.config);
      this.save.disabled = this.fields.length === 0;
      if (this.fields.length === 0) this.status.textContent = 'The bridge publishes no config keys.';
    } catch (e) {
      this.showError(e);
    }
  }

  private async submit(): Promise<void> {
    this.clearMessages();
    const inputs: Record<string, string> = {};
    for (const f of this.fields) inputs[f.key] = this.input(f.key)?.value ?? '';
    this.save.disabled = true;
    try {
      const { config } = await sendJson<{ config: Config }>('PUT', '/config', configBody(this.fields, inputs));
      this.render(config);
      const n = Object.keys(config).length;
      this.status.textContent = `Saved ${n} setting${n === 1 ? '' : 's'} at ${new Date().toLocaleTimeString()}. They apply to the next chat.`;
    } catch (e) {
      this.showError(e);
    } finally {
      this.save.disabled = false;
    }
  }
}
