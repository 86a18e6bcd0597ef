import type { MessagesBody, MockReply } from './mock-anthropic.js';

type Block = { type?: string; text?: string; tool_use_id?: string; is_error?: boolean; content?: unknown; source?: unknown };

const blocksOf = (content: unknown): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as Block[]) : [];

/** The tool results of the turn in progress: those after the last user message that is not itself a tool result. */
export function currentToolResults(body: MessagesBody): Block[] {
  const messages = body.messages ?? [];
  let start = 0;
  messages.forEach((m, i) => {
    if (m.role === 'user' && !blocksOf(m.content).some((b) => b.type === 'tool_result')) start = i;
  });
  return messages.slice(start).flatMap((m) => (m.role === 'user' ? blocksOf(m.content).filter((b) => b.type === 'tool_result') : []));
}

/** Every text the model was sent in user messages (tool results included), for "did the context reach it" checks. */
export function userTexts(body: MessagesBody): string[] {
  return (body.messages ?? [])
    .filter((m) => m.role === 'user')
    .flatMap((m) => blocksOf(m.content))
    .map((b) => (b.type === 'text' ? (b.text ?? '') : b.type === 'tool_result' ? JSON.stringify(b.content) : ''));
}

/** The image blocks of the request's messages. */
export function imageBlocks(body: MessagesBody): Array<{ type: string; source: { type: string; media_type: string; data: string } }> {
  return (body.messages ?? []).flatMap((m) => blocksOf(m.content)).filter((b) => b.type === 'image') as never;
}

export const toolNames = (body: MessagesBody): string[] => (body.tools ?? []).map((t) => t.name ?? t.type ?? '');

/** Whether a request is the agent's own turn (it offers tools) rather than a side request. */
const offers = (body: MessagesBody, names: readonly string[]) => toolNames(body).some((n) => names.includes(n));

/**
 * A mock model that plays tool calls, one per model call, then answers `finalText` with the tool
 * results' outcome appended (`OK:`/`ERR:` and the start of each result). Requests that offer none
 * of the steps' tools (side requests, a turn with tools off) get `sideText`, unless `always` (a
 * model calling a tool it was not offered).
 */
export function agentScript(
  steps: ReadonlyArray<{ name: string; input: unknown }>,
  finalText = 'All done.',
  options: { sideText?: string; always?: boolean } = {},
): (body: MessagesBody) => MockReply {
  let n = 0;
  const names = steps.map((s) => s.name);
  return (body) => {
    if (!options.always && !offers(body, names)) return { blocks: [{ type: 'text', text: options.sideText ?? 'side answer' }] };
    const done = currentToolResults(body);
    const step = steps[done.length];
    if (step) {
      return {
        blocks: [
          { type: 'text', text: `Step ${done.length + 1}: ${step.name}.` },
          { type: 'tool_use', id: `toolu_mock_${Date.now().toString(36)}_${++n}`, name: step.name, input: step.input },
        ],
      };
    }
    const outcome = done.map((r) => `${r.is_error ? 'ERR' : 'OK'}:${JSON.stringify(r.content).slice(0, 80)}`).join(' | ');
    return { blocks: [{ type: 'text', text: `${finalText} ${outcome}`.trim() }] };
  };
}

/**
 * A mock model for `--json-schema` runs: each call answers with a `StructuredOutput` call whose
 * input is the next of `inputs` (the last repeats). A request without that tool gets plain text.
 */
export function structuredScript(inputs: readonly unknown[], plainText = 'not json'): (body: MessagesBody) => MockReply {
  let i = 0;
  return (body) => {
    if (!offers(body, ['StructuredOutput'])) return { blocks: [{ type: 'text', text: plainText }] };
    const input = inputs[Math.min(i++, inputs.length - 1)];
    return { blocks: [{ type: 'tool_use', id: `toolu_so_${i}`, name: 'StructuredOutput', input }] };
  };
}
