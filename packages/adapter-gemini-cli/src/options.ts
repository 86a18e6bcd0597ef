/** Options of `createGeminiCliAdapter()`. */
export interface GeminiCliAdapterOptions {
  /** The Gemini CLI executable (default `gemini`, looked up on the call's PATH). */
  command?: string;
  /**
   * Let Gemini CLI retry a failed model request itself (default false). It retries 429, 5xx and
   * network errors up to 10 times with backoff up to 30 s (3–4 minutes in all), far beyond most
   * deadlines, and a settings file is the only switch. So by default the adapter ends the run at
   * the first failed attempt Gemini reports and returns a typed error at once (a rate limit with
   * its suggested wait); retries and fallback are then the caller's (the orchestrator's).
   */
  cliRetries?: boolean;
  /**
   * Keep `gemini --acp` processes warm between chats (default true): each chat is a new ACP session
   * in a live process (tens of ms instead of a ~1 s start). `warmIdleMs` 0 turns it off too; a fork
   * and a process that would not start fall back to one `gemini` run per chat.
   */
  warm?: boolean;
  /** Bound on `gemini --version` (default 15 s: it starts the whole CLI, ~1–2 s). */
  versionTimeoutMs?: number;
  /** Cap on one run's stdout (default 32 MiB); beyond it the run fails. */
  maxOutputBytes?: number;
}
