import { randomUUID } from 'node:crypto';
import type { ChatResponse, Usage } from '@toolbridge/core';

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

/**
 * Tools report usage in their own terms; OpenAI's counts are totals:
 * - `prompt_tokens` = `input_tokens` plus Anthropic-style `cache_read_input_tokens`
 *   and `cache_creation_input_tokens` (Anthropic counts those apart from
 *   `input_tokens`). `cached_input_tokens` (Codex/OpenAI style) is already part
 *   of `input_tokens`, so it is only reported as `prompt_tokens_details.cached_tokens`.
 * - `completion_tokens` = `output_tokens` (reasoning included, as in OpenAI);
 *   `reasoning_output_tokens` becomes `completion_tokens_details.reasoning_tokens`.
 * A tool that reports nothing yields zeros.
 */
export function toOpenAIUsage(usage: Usage | undefined): OpenAIUsage {
  const n = (key: string) => {
    const v = usage?.[key];
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
  };
  const cacheRead = n('cache_read_input_tokens');
  const prompt = n('input_tokens') + cacheRead + n('cache_creation_input_tokens');
  const completion = n('output_tokens');
  const out: OpenAIUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const cached = n('cached_input_tokens') + cacheRead;
  if (cached > 0) out.prompt_tokens_details = { cached_tokens: cached };
  const reasoning = n('reasoning_output_tokens');
  if (reasoning > 0) out.completion_tokens_details = { reasoning_tokens: reasoning };
  return out;
}

export function completionId(): string {
  return `chatcmpl-${randomUUID().replace(/-/g, '')}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: { role: 'assistant'; content: string; refusal: null };
    finish_reason: 'stop';
    logprobs: null;
  }>;
  usage: OpenAIUsage;
  /** Toolbridge's session: send it back as `session_id` to continue the conversation. */
  session_id?: string;
}

/** A whole answer as OpenAI's `chat.completion`; `model` is the id the caller asked for. */
export function toChatCompletion(response: ChatResponse, model: string): ChatCompletion {
  const result = response.result;
  return {
    id: completionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: result.message.content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: toOpenAIUsage(result.usage),
    ...(response.sessionId ? { session_id: response.sessionId } : {}),
  };
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    delta: { role?: 'assistant'; content?: string };
    finish_reason: 'stop' | null;
    logprobs: null;
  }>;
  usage?: OpenAIUsage | null;
}

/**
 * Builds the chunks of one streamed answer. All chunks share id, created and
 * model; with `include_usage` every chunk carries `usage: null` and a last
 * chunk with no choices carries the totals, as OpenAI does.
 */
export function chunkFactory(model: string, includeUsage: boolean) {
  const id = completionId();
  const created = nowSeconds();
  const base = () => ({ id, object: 'chat.completion.chunk' as const, created, model });
  const usageField = includeUsage ? { usage: null } : {};
  return {
    delta(delta: { role?: 'assistant'; content?: string }, finish: 'stop' | null = null): ChatCompletionChunk {
      return { ...base(), choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...usageField };
    },
    usage(usage: Usage | undefined): ChatCompletionChunk {
      return { ...base(), choices: [], usage: toOpenAIUsage(usage) };
    },
  };
}
