import type { CallContext, StreamEvent, ToolAdapter, ToolRequest } from '../adapter.js';
import { checkAnswer, jsonInstruction, repairPrompt, schemaMismatch, type StructuredOutput } from '../structured.js';
import type { ChatResult, ResponseFormat, ToolMessage } from '../types.js';
import { runAdapter, type RunInputs } from './run.js';

/** Ask for JSON in words, at the end of the last user message. */
function withJsonInstruction(messages: readonly ToolMessage[], instruction: string): ToolMessage[] {
  const last = messages.map((m) => m.role).lastIndexOf('user');
  return messages.map((m, i) =>
    i === last ? { ...m, content: [...m.content, { type: 'text' as const, text: `\n\n${instruction}` }] } : m,
  );
}

/** How a structured answer is asked for: natively (the tool constrains its model) or in words. */
export type StructuredMode = 'native' | 'prompt';

/**
 * The one place "native or prompt" is decided, per request: natively when the adapter can
 * constrain its model (`features.structuredOutput: 'native'`) and takes this format now
 * (`takesFormat`: Codex only a schema OpenAI's strict mode accepts, OpenCode only on its server).
 */
export function structuredMode(adapter: ToolAdapter, format: ResponseFormat, ctx: CallContext): StructuredMode {
  return adapter.features.structuredOutput === 'native' && (adapter.takesFormat?.(format, ctx) ?? true) ? 'native' : 'prompt';
}

/**
 * A request in its prompt form: no `responseFormat`, the rule (and schema) in words at the end of
 * the last user message. Also for a transport that learns only while it runs that it cannot take
 * the format natively after all (OpenCode's server would not start: `opencode run` takes the chat).
 */
export function promptForm(request: ToolRequest, format: ResponseFormat): ToolRequest {
  const { responseFormat: _native, ...rest } = request;
  return { ...rest, messages: withJsonInstruction(request.messages, jsonInstruction(format)) };
}

/** What the adapter is sent for a planned request (which carries the format): native, or the prompt form. */
export function adapterRequest(
  adapter: ToolAdapter,
  planned: ToolRequest,
  ctx: CallContext,
): { request: ToolRequest; mode?: StructuredMode } {
  const format = planned.responseFormat;
  if (!format) return { request: planned };
  const mode = structuredMode(adapter, format, ctx);
  return { request: mode === 'native' ? planned : promptForm(planned, format), mode };
}

function addUsage(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * The check stage: a structured answer is parsed and checked against its schema; a wrong one gets
 * one repair turn (in the tool's own session when it can resume, else with the conversation
 * resent), a second wrong one fails the turn (502 `schema_mismatch`). The checked JSON text is
 * the answer, sent as one delta (the run held its deltas back). An interrupted answer is what
 * there was so far: it is not checked or repaired.
 */
export async function* checkedAnswer(
  run: RunInputs,
  structured: StructuredOutput | undefined,
  first: ChatResult,
  sent: ToolRequest,
): AsyncGenerator<StreamEvent, ChatResult> {
  const { adapter, control } = run;
  if (!structured || control.interrupted) return first;
  let result = first;
  let check = checkAnswer(result.message.content, structured);
  if (!check.ok) {
    const native =
      typeof result.metadata.nativeSessionId === 'string' && adapter.features.sessions?.resume
        ? result.metadata.nativeSessionId
        : undefined;
    const repair: ToolMessage = { role: 'user', content: [{ type: 'text', text: repairPrompt(check.errors, structured.format) }] };
    const repairRequest: ToolRequest = native
      ? { ...sent, messages: [repair], resume: { nativeSessionId: native, fork: false } }
      : { ...sent, messages: [...sent.messages, { role: 'assistant', content: [{ type: 'text', text: result.message.content }] }, repair] };
    result = yield* runAdapter(run, repairRequest, true);
    result = {
      ...result,
      usage: addUsage(first.usage, result.usage),
      metadata: { ...first.metadata, ...result.metadata, repairTurns: 1 },
    };
    check = checkAnswer(result.message.content, structured);
    if (!check.ok && !control.interrupted) throw schemaMismatch(check.errors, adapter.id, adapter.name);
  }
  if (!check.ok) return result;
  if (check.text) yield { type: 'delta', text: check.text };
  return { ...result, message: { role: 'assistant', content: check.text }, object: check.value };
}
