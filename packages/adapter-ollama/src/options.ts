/** Options of `createOllamaAdapter()`. */
export interface OllamaAdapterOptions {
  /** The fetch to use (default: the global one, whose undici agent keeps connections alive). */
  fetch?: typeof globalThis.fetch;
  /** Bound on `/api/version` and `/api/tags` during detection and health checks (default 3000 ms). */
  probeTimeoutMs?: number;
  /**
   * Bound on the wait for Ollama to start answering a chat or completion. Unset by default:
   * loading a large model into memory can take minutes, and the call's own deadline already
   * bounds the whole request.
   */
  firstByteTimeoutMs?: number;
  /** Bound on one answer's bytes as Ollama streams it (default 32 MiB); beyond it the call fails with ProviderExecutionError. */
  maxResponseBytes?: number;
  /**
   * Least time between two updates of a thinking model's live reasoning activity (default 250 ms).
   * Each update carries the latest 2000 characters; the whole text comes once, when the step completes.
   */
  reasoningUpdateMs?: number;
}
