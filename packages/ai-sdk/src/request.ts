import type { LanguageModelV4CallOptions, SharedV4Warning } from '@ai-sdk/provider';
import type { ChatMessage, ChatRequest, ResponseFormat, Toolbridge } from 'toolbridge';
import { toChatMessages } from './prompt.js';
import { readProviderOptions, type ToolbridgeFallbackSettings } from './settings.js';

/** What a model calls: one tool (with a model, or its default), or a fallback chain of tools. */
export type ModelTarget =
  | { kind: 'tool'; toolId: string; model?: string; settings: ToolbridgeFallbackSettings }
  | { kind: 'fallback'; providers: readonly string[]; settings: ToolbridgeFallbackSettings };

export interface PreparedCall {
  request: ChatRequest;
  warnings: SharedV4Warning[];
  timeoutMs?: number;
}

/** Sampling settings no tool of Toolbridge takes. */
const NEVER_HONOURED = ['topP', 'topK', 'presencePenalty', 'frequencyPenalty', 'stopSequences', 'seed'] as const;

/**
 * One AI SDK call as a Toolbridge chat request, with a warning for every setting that will not
 * be honoured. Agents run their own loop with their own tools and sampling: `temperature` and
 * `maxOutputTokens` reach only runtimes (Ollama), and caller-defined tools reach no tool.
 */
export function prepareCall(tb: Toolbridge, target: ModelTarget, options: LanguageModelV4CallOptions): PreparedCall {
  const warnings: SharedV4Warning[] = [];
  const perCall = readProviderOptions(options.providerOptions, warnings);
  const settings = { ...target.settings, ...perCall };
  const toolIds = target.kind === 'tool' ? [target.toolId] : target.providers;
  const agents = toolIds.map((id) => tb.registry.adapter(id)).filter((a) => a.type === 'agent');
  const ignoredBy = agents.map((a) => a.name).join(', ');

  const sampling = (feature: 'temperature' | 'maxOutputTokens') => {
    if (options[feature] === undefined || agents.length === 0) return;
    const who = agents.length === toolIds.length ? ignoredBy : `${ignoredBy} (in this fallback chain)`;
    warnings.push({ type: 'unsupported', feature, details: `agents choose this themselves; ${who} will not apply it` });
  };
  sampling('temperature');
  sampling('maxOutputTokens');
  for (const feature of NEVER_HONOURED) {
    if (options[feature] !== undefined) warnings.push({ type: 'unsupported', feature, details: 'no Toolbridge tool takes this setting' });
  }
  if (options.tools && options.tools.length > 0) {
    warnings.push({
      type: 'unsupported',
      feature: 'tools',
      details: `Toolbridge tools act with their own tools; caller-defined tools (${options.tools.map((t) => t.name).join(', ')}) were not offered`,
    });
  }
  if (options.toolChoice && options.toolChoice.type !== 'auto' && options.toolChoice.type !== 'none') {
    warnings.push({ type: 'unsupported', feature: 'toolChoice', details: 'caller-defined tools are not offered, so none can be required' });
  }
  if (options.reasoning !== undefined && options.reasoning !== 'provider-default') {
    warnings.push({ type: 'unsupported', feature: 'reasoning', details: 'the reasoning effort is set in each tool’s own configuration' });
  }

  let messages = toChatMessages(options.prompt, warnings);
  if (settings.sessionId !== undefined) messages = newMessagesOf(messages);
  const responseFormat = toResponseFormat(options.responseFormat);
  const request: ChatRequest = {
    messages,
    ...(target.kind === 'tool' && target.model ? { model: target.model } : {}),
    ...(settings.cwd !== undefined ? { cwd: settings.cwd } : {}),
    ...(settings.additionalDirs !== undefined ? { additionalDirs: settings.additionalDirs } : {}),
    ...(settings.permissions !== undefined ? { permissions: settings.permissions } : {}),
    ...(options.maxOutputTokens !== undefined ? { maxTokens: options.maxOutputTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(settings.sessionId !== undefined ? { sessionId: settings.sessionId } : {}),
    ...(settings.fork !== undefined ? { fork: settings.fork } : {}),
  };
  return { request, warnings, ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}) };
}

/**
 * A session holds the conversation so far, so a continued turn sends only what is new: the
 * messages after the last assistant message. AI SDK apps resend the whole history every turn
 * (`useChat` does); without this, every earlier message would reach the tool twice.
 */
function newMessagesOf(messages: ChatMessage[]): ChatMessage[] {
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
  return messages.slice(lastAssistant + 1);
}

/**
 * JSON answers: with a schema, Toolbridge's JSON-Schema answers (checked by the library, one
 * repair turn); without, any JSON. The AI SDK's `description` goes into the schema, where every
 * tool sees it; its `name` only when it is a valid Toolbridge name.
 */
function toResponseFormat(format: LanguageModelV4CallOptions['responseFormat']): ResponseFormat | undefined {
  if (!format || format.type !== 'json') return undefined;
  if (!format.schema) return { type: 'json' };
  const schema = { ...(format.schema as Record<string, unknown>) };
  if (format.description && schema.description === undefined) schema.description = format.description;
  const name = format.name && /^[A-Za-z0-9_-]{1,64}$/.test(format.name) ? format.name : undefined;
  return { type: 'json_schema', schema, ...(name ? { name } : {}) };
}
