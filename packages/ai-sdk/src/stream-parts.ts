import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { Activity, Approval, Attempt, ChatResponse, FallbackChatResponse } from 'toolbridge';
import { isFinished, isStep, toolCallOf, toolResultOf } from './activity.js';
import { toFinishReason, toProviderMetadata, toUsage } from './result.js';

/** The library's stream events, single-tool and fallback alike. */
export type ToolbridgeEvent =
  | { type: 'delta'; text: string }
  | { type: 'activity'; activity: Activity }
  | { type: 'attempt'; attempt: Attempt }
  // The AI SDK has no approval part: the caller answers through `onApproval` or `tb.approvals`.
  | { type: 'approval'; approval: Approval }
  | { type: 'done'; response: ChatResponse | FallbackChatResponse };

interface OpenStep {
  callId: string;
  last: Exclude<Activity, { kind: 'reasoning' }>;
  resulted: boolean;
}

/**
 * Turns the library's events into AI SDK stream parts, one event at a time: text deltas into one
 * text block, reasoning activities (which carry their whole text so far) into reasoning deltas,
 * other activities into a provider-executed tool call when first seen and its result when
 * finished. Every part opened is closed: when a fallback attempt fails its open steps get error
 * results before the next tool starts, and `done` closes the rest before `finish`.
 */
export class StreamPartsBuilder {
  private textId: string | undefined;
  private readonly reasoning = new Map<string, { partId: string; text: string; open: boolean }>();
  private steps = new Map<string, OpenStep>();
  /** Attempt number: ids of one tool's activities must not collide with the next tool's. */
  private generation = 0;
  private blocks = 0;

  /** `nonce` keeps ids unique across the calls of one conversation (agents reuse `item_0`, ...). */
  constructor(private readonly nonce: string) {}

  push(event: ToolbridgeEvent): LanguageModelV4StreamPart[] {
    switch (event.type) {
      case 'delta':
        return this.text(event.text);
      case 'activity':
        return isStep(event.activity) ? this.step(event.activity) : this.thought(event.activity);
      case 'attempt':
        return event.attempt.outcome === 'failed' ? this.attemptFailed(event.attempt) : [];
      case 'approval':
        return [];
      case 'done':
        return this.done(event.response);
    }
  }

  private id(kind: string, id: string) {
    return `${this.nonce}-${this.generation}-${kind}-${id}`;
  }

  private text(delta: string): LanguageModelV4StreamPart[] {
    if (!delta) return [];
    const out: LanguageModelV4StreamPart[] = [];
    if (this.textId === undefined) {
      this.textId = `${this.nonce}-text`;
      out.push({ type: 'text-start', id: this.textId });
    }
    out.push({ type: 'text-delta', id: this.textId, delta });
    return out;
  }

  private thought(a: Extract<Activity, { kind: 'reasoning' }>): LanguageModelV4StreamPart[] {
    const out: LanguageModelV4StreamPart[] = [];
    let r = this.reasoning.get(a.id);
    if (!r || !r.open) {
      // A step seen again after it ended starts a new block (its text so far is not repeated).
      const seen = r?.text ?? '';
      r = { partId: this.id('reasoning', `${a.id}-${++this.blocks}`), text: a.text.startsWith(seen) ? seen : '', open: true };
      this.reasoning.set(a.id, r);
      out.push({ type: 'reasoning-start', id: r.partId });
    }
    const delta = a.text.startsWith(r.text) ? a.text.slice(r.text.length) : a.text;
    r.text = a.text;
    if (delta) out.push({ type: 'reasoning-delta', id: r.partId, delta });
    if (isFinished(a)) {
      r.open = false;
      out.push({ type: 'reasoning-end', id: r.partId });
    }
    return out;
  }

  private step(a: OpenStep['last']): LanguageModelV4StreamPart[] {
    const out: LanguageModelV4StreamPart[] = [];
    let s = this.steps.get(a.id);
    if (!s) {
      s = { callId: this.id('step', a.id), last: a, resulted: false };
      this.steps.set(a.id, s);
      out.push(toolCallOf(a, s.callId));
    }
    s.last = a;
    if (isFinished(a) && !s.resulted) {
      s.resulted = true;
      out.push(toolResultOf(a, s.callId));
    }
    return out;
  }

  /** Close what the failed attempt left open; the next tool's steps get fresh ids. */
  private attemptFailed(attempt: Attempt): LanguageModelV4StreamPart[] {
    const reason = { status: 'failed', attempt: { toolId: attempt.toolId, reason: attempt.reason ?? null } };
    const out = this.closeOpen((s) => toolResultOf(s.last, s.callId, reason));
    this.generation++;
    this.steps = new Map();
    this.reasoning.clear();
    return out;
  }

  private closeOpen(resultOf: (s: OpenStep) => LanguageModelV4StreamPart): LanguageModelV4StreamPart[] {
    const out: LanguageModelV4StreamPart[] = [];
    for (const r of this.reasoning.values()) if (r.open) out.push({ type: 'reasoning-end', id: r.partId });
    for (const s of this.steps.values()) if (!s.resulted) out.push(resultOf(s));
    for (const r of this.reasoning.values()) r.open = false;
    for (const s of this.steps.values()) s.resulted = true;
    return out;
  }

  private done(response: ChatResponse | FallbackChatResponse): LanguageModelV4StreamPart[] {
    const final = new Map((response.activities ?? []).map((a) => [a.id, a]));
    const out = this.closeOpen((s) => {
      const last = final.get(s.last.id);
      return toolResultOf(last && isStep(last) ? last : s.last, s.callId);
    });
    // An answer that came without deltas (a tool that only reports its result) is still text.
    if (this.textId === undefined) out.push(...this.text(response.result.message.content));
    if (this.textId !== undefined) out.push({ type: 'text-end', id: this.textId });
    out.push({ type: 'response-metadata', modelId: response.model, timestamp: new Date() });
    out.push({
      type: 'finish',
      usage: toUsage(response.result.usage),
      finishReason: toFinishReason(response.result.metadata),
      providerMetadata: toProviderMetadata(response),
    });
    return out;
  }
}
