import type { LanguageModelV4Content } from '@ai-sdk/provider';
import type { ChatResponse, FallbackChatResponse } from 'toolbridge';
import { isStep, toolCallOf, toolResultOf } from './activity.js';

/**
 * A whole answer as AI SDK content: the agent's steps in the order they started (reasoning as
 * reasoning, the rest as provider-executed tool calls, each with its result), then the answer.
 */
export function toContent(response: ChatResponse | FallbackChatResponse, nonce: string): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = [];
  for (const a of response.activities ?? []) {
    if (!isStep(a)) {
      if (a.text) content.push({ type: 'reasoning', text: a.text });
      continue;
    }
    const id = `${nonce}-0-step-${a.id}`;
    content.push(toolCallOf(a, id), toolResultOf(a, id));
  }
  content.push({ type: 'text', text: response.result.message.content });
  return content;
}
