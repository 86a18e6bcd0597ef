import type { StreamEvent, ToolAdapter, ToolRequest } from '../adapter.js';
import { checkAnswer, jsonInstruction, repairPrompt, schemaMismatch, type StructuredOutput } from '../structured.js';
import type { ChatResult, ToolMessage } from '../types.js';
import { runAdapter, type RunInputs } from './run.js';

/** Ask for JSON in words, for adapters that do not constrain the model themselves. */
function withJsonInstruction(messages: readonly ToolMessage[], instruction: string): ToolMessage[] {
  const last = messages.map((m) => m.role).lastIndexOf('user');
  return messages.map((m, i) =>
    i === last ? { ...m, content: [...m.content, { type: 'text' as const, text: `\n\n${instruction}` }] } : m,
  );
}

/** What the adapter is sent for a planned request: a structured answer asked for natively, or in words. */
export function adapterRequest(adapter: ToolAdapter, planned: ToolRequest, structured: StructuredOutput | undefined): ToolRequest {
  if (!structured || adapter.features.structuredOutput === 'native') return planned;
  return { ...planned, messages: withJsonInstruction(planned.messages, jsonInstruction(structured.format)) };
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
  sent: { planned: ToolRequest; request: ToolRequest },
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
      ? { ...sent.planned, messages: [repair], resume: { nativeSessionId: native, fork: false } }
      : {
          ...sent.request,
          messages: [...sent.request.messages, { role: 'assistant', content: [{ type: 'text', text: result.message.content }] }, repair],
        };
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
