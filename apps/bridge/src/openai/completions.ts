import { randomUUID } from 'node:crypto';
import { type ChatResponse, type Usage } from '@toolbridge/core';
import { usageTotals } from '@toolbridge/core/runtime';

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

/**
 * OpenAI's counts are totals (core's usageTotals reads the tools' own keys): `prompt_tokens` is all
 * input, cached included, with the cached part in `prompt_tokens_details`; `completion_tokens` is
 * all output, reasoning included, with the reasoning part in `completion_tokens_details`. A tool
 * that reports nothing yields zeros.
 */
export function toOpenAIUsage(usage: Usage | undefined): OpenAIUsage {
  const t = usageTotals(usage);
  const prompt = t.input ?? 0;
  const completion = t.output ?? 0;
  const out: OpenAIUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (t.cacheRead) out.prompt_tokens_details = { cached_tokens: t.cacheRead };
  if (t.reasoning) out.completion_tokens_details = { reasoning_tokens: t.reasoning };
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
