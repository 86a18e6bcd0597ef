/** The playground: one tool or an ordered fallback list, a prompt, the answer and the agent's steps streamed in. */

import { ActivityTimeline } from './activity.js';
import { renderTimeline } from './activity-view.js';
import { failureText, isTokenFailure, problemsOf } from './api-errors.js';
import { ApiError, postStream, sendJson } from './api.js';
import { ApprovalsPanel } from './approvals-panel.js';
import { renderDone, renderError } from './answer-view.js';
import { chatCall, moveItem } from './chat.js';
import { ChatOptions, type SessionChoice } from './chat-options.js';
import { byId, el } from './dom.js';
import { renderFallbackList } from './fallback-list.js';
import type { Activity, Approval, Attempt, Tool } from '@toolbridge/core/wire';
import type { ChatDone } from './chat.js';
import type { ErrorBody } from './api-errors.js';

export class Playground {
  private tools: Tool[] = [];
  /** Fallback order and which tools are in it; kept across refreshes. */
  private order: string[] = [];
  private included = new Set<string>();
  private controller?: AbortController;
  readonly options = new ChatOptions();
  readonly approvals = new ApprovalsPanel();
  /** The session of the running chat, once known (a continued one, or from an approval): what Interrupt stops. */
  private runningSession?: string;
  /** Called after every finished chat (the Sessions panel reloads). */
  onFinished: () => void = () => undefined;

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
  private readonly interrupt = byId<HTMLButtonElement>('chat-interrupt');
  private readonly status = byId('chat-status');
  private readonly answer = byId('chat-answer');
  private readonly error = byId('chat-error');
  private readonly result = byId('chat-result');
  private readonly activity = byId('chat-activity');

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
    this.interrupt.addEventListener('click', () => void this.interruptTurn());
    for (const radio of this.form.querySelectorAll<HTMLInputElement>('input[name="mode"]'))
      radio.addEventListener('change', () => this.showMode());
    this.toolSelect.addEventListener('change', () => this.fillModels());
    this.showMode();
  }

  private get mode(): 'single' | 'fallback' {
    return this.form.querySelector<HTMLInputElement>('input[name="mode"]:checked')?.value === 'fallback' ? 'fallback' : 'single';
  }

  /** New discovery results: keep the user's picks, add tools not seen before. */
  setTools(tools: Tool[]): void {
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
    renderFallbackList(this.fallbackList, {
      tools: this.tools,
      order: this.order,
      included: this.included,
      onMove: (index, delta) => {
        this.order = moveItem(this.order, index, delta);
        this.renderFallbackList();
      },
    });
  }

  private setBusy(busy: boolean): void {
    this.send.disabled = busy;
    this.stop.disabled = !busy;
    this.interrupt.disabled = !busy || !this.runningSession;
    this.answer.setAttribute('aria-busy', String(busy));
  }

  private showError(text: string, attempts?: Attempt[], problems?: string[]): void {
    renderError(this.error, this.result, text, attempts, problems);
  }

  /** The chat box continues `session` (single-tool mode, its tool picked when known). */
  continueSession(session: SessionChoice, fork: boolean): void {
    this.options.setSession(session, fork);
    const single = this.form.querySelector<HTMLInputElement>('input[name="mode"][value="single"]');
    if (single) single.checked = true;
    if (this.tools.some((t) => t.id === session.toolId)) this.toolSelect.value = session.toolId;
    this.showMode();
    this.prompt.focus();
  }

  /** `title`: what the chat box calls the conversation when it is continued (its first prompt). */
  private showDone(done: ChatDone, title: string): void {
    const sessionId = done.sessionId;
    renderDone(
      this.result,
      this.answer,
      done,
      sessionId ? () => this.continueSession({ id: sessionId, toolId: done.toolId, title }, false) : undefined,
    );
  }

  /** Unlike Stop (which ends the tool's process), Interrupt ends the turn and keeps the session going. */
  private async interruptTurn(): Promise<void> {
    const sessionId = this.runningSession;
    if (!sessionId) return;
    this.interrupt.disabled = true;
    try {
      await sendJson('POST', `/sessions/${encodeURIComponent(sessionId)}/interrupt`, {});
      this.status.textContent = 'Interrupting…';
    } catch (e) {
      this.status.textContent = `Interrupt failed: ${e instanceof ApiError ? failureText(e.failure) : String(e)}`;
    }
  }

  private knowSession(sessionId: string | undefined): void {
    if (!sessionId || this.runningSession) return;
    this.runningSession = sessionId;
    if (this.controller) this.interrupt.disabled = false;
  }

  private async run(): Promise<void> {
    if (this.controller) return;
    const call = chatCall({
      mode: this.mode,
      toolId: this.toolSelect.value,
      providers: this.order.filter((id) => this.included.has(id)),
      prompt: this.prompt.value,
      model: this.model.value,
      permissions: this.options.permissions,
      cwd: this.options.cwd,
      schema: this.options.schema,
      images: this.options.imageParts,
      session: this.options.sessionChoice,
      approvals: this.options.approvals,
      mcpServers: this.options.mcpServers,
    });
    this.answer.replaceChildren();
    this.error.replaceChildren();
    this.result.replaceChildren();
    this.activity.replaceChildren();
    if ('error' in call) {
      this.showError(call.error);
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    const continued = this.options.sessionChoice;
    this.runningSession = continued && !continued.fork ? continued.id : undefined;
    this.setBusy(true);
    this.status.textContent = 'Waiting for the answer…';
    const attempts: Attempt[] = [];
    const timeline = new ActivityTimeline();
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
          case 'approval': {
            const approval = data as Approval;
            this.knowSession(approval.sessionId);
            this.approvals.add(approval);
            this.status.textContent = `Waiting for your approval: ${approval.title}`;
            break;
          }
          case 'activity': {
            const activity = (data as { activity: Activity }).activity;
            timeline.apply(activity);
            renderTimeline(this.activity, timeline);
            this.status.textContent = `Working: ${activity.title}`;
            break;
          }
          case 'done': {
            finished = true;
            const done = data as ChatDone;
            // A non-streamed answer carries the steps' final states instead of events.
            if (timeline.size === 0 && done.activities?.length) {
              timeline.applyAll(done.activities);
              renderTimeline(this.activity, timeline);
            }
            this.showDone(done, this.options.sessionTitle ?? (this.prompt.value.trim().slice(0, 80) || '(images)'));
            this.status.textContent = done.result?.metadata?.finishReason === 'interrupted' ? 'Interrupted. The session goes on.' : 'Done.';
            // A continued (or forked) session goes on with the id the answer names.
            if (done.sessionId) this.options.advanceSession(done.sessionId, done.toolId);
            this.options.clearImages();
            break;
          }
          case 'error': {
            finished = true;
            this.status.textContent = 'Failed.';
            const error = (data as { error: ErrorBody }).error;
            this.showError(failureText(error), attempts, problemsOf(error.details));
            break;
          }
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
        if (!isTokenFailure(e.failure)) this.showError(failureText(e.failure), e.failure.attempts, e.failure.problems);
      } else {
        this.status.textContent = 'Failed.';
        this.showError(`the connection to the bridge failed (${e instanceof Error ? e.message : String(e)})`);
      }
    } finally {
      this.controller = undefined;
      this.runningSession = undefined;
      this.setBusy(false);
      // What the ended turn still waited for is withdrawn.
      void this.approvals.load();
      this.onFinished();
    }
  }
}
