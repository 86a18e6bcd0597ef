/** Options of `createCopilotCliAdapter()`. */
export interface CopilotCliAdapterOptions {
  /**
   * The Copilot CLI executable (default `copilot`, looked up on the call's PATH). When it is
   * npm's loader script, the native executable beside it is run instead.
   */
  command?: string;
  /**
   * Let Copilot CLI retry a failed model request itself (default false). It retries 429, 5xx,
   * transport errors (5 times, up to ~70 s in all) and 401s (twice), and no switch turns that off.
   * By default the adapter ends the run when Copilot announces its first retry and returns that
   * failure, typed (a 401 as ToolAuthError, a 429 as RateLimitError); retries and fallback are then
   * the caller's (the orchestrator's).
   */
  cliRetries?: boolean;
  /** Extra argv for `copilot login` (e.g. `['--host', 'https://example.ghe.com']`). */
  loginArgs?: readonly string[];
  /** A `copilot login` started by `startAuth()` is ended after this long (default 15 minutes: a device code lasts 15). */
  loginTtlMs?: number;
  /** How long `startAuth()` waits for the device code (default 10 s). */
  loginOutputWaitMs?: number;
  /**
   * Keep `copilot --acp --stdio` processes warm between chats (default true): each chat is a new ACP
   * session in a live process (tens of ms instead of a ~0.8 s start). `warmIdleMs` 0 turns it off
   * too; a process that would not start falls back to one `copilot` run per chat.
   */
  warm?: boolean;
  /** Bound on `copilot --version` (default 15 s; the first run on a machine unpacks Copilot's package, ~3 s). */
  versionTimeoutMs?: number;
  /** Cap on one run's stdout (default 32 MiB, plus room for the images it echoes); beyond it the run fails. */
  maxOutputBytes?: number;
}
