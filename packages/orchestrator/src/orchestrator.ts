import type { Attempt, ChatRequest, FallbackChatResponse, StreamEvent, ToolRegistry } from '@toolbridge/core';

/** Options of a fallback chat across an ordered list of tools. */
export interface FallbackOptions {
  /** Tool ids in the order to try; duplicates are collapsed. */
  providers: readonly string[];
  /** Retries per tool for retryable failures (default 0). */
  retries?: number;
  /** Time allowed for one attempt. */
  perAttemptTimeoutMs?: number;
  /** Time allowed for the whole fallback chat. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called as each attempt is recorded. */
  onAttempt?: (attempt: Attempt) => void;
}

/** Events of a streamed fallback chat. */
export type FallbackStreamEvent =
  | { type: 'attempt'; attempt: Attempt }
  | Exclude<StreamEvent, { type: 'result' }>
  | { type: 'done'; response: FallbackChatResponse };

export interface Orchestrator {
  chat(request: ChatRequest, options: FallbackOptions): Promise<FallbackChatResponse>;
  /** Fallback happens only before the first delta; after it, a failure is thrown. */
  stream(request: ChatRequest, options: FallbackOptions): AsyncIterable<FallbackStreamEvent>;
}

export function createOrchestrator(registry: ToolRegistry): Orchestrator {
  void registry;
  throw new Error('createOrchestrator: implemented in issue 7');
}
