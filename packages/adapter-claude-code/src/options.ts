/** Options of `createClaudeCodeAdapter()`. */
export interface ClaudeCodeAdapterOptions {
  /** Executable to run (default `claude`, looked up on the call's PATH). */
  command?: string;
  /**
   * Where the last usage-limit snapshot is kept (default `$XDG_STATE_HOME/toolbridge`, else
   * `~/.local/state/toolbridge`, from the call's environment).
   */
  stateDir?: string;
  /** Lifetime of a `claude auth login` flow started by startAuth (default 10 minutes). */
  loginTtlMs?: number;
  /** How long startAuth waits for the login URL (default 5 s). */
  loginUrlWaitMs?: number;
  /**
   * Value of CLAUDE_CODE_MAX_RETRIES for chats (default 0). Claude Code's own retries back off for
   * minutes; retrying belongs to the caller's deadline and the orchestrator's retry policy.
   */
  maxRetries?: number;
  /** Extra argv appended to every chat run (never put prompts here). */
  extraArgs?: readonly string[];
  /**
   * Keep Claude Code's session transcripts (default true: they live where every `claude` run keeps
   * them, `$CLAUDE_CONFIG_DIR/projects/`). Sessions continue natively through `--resume` only when
   * they are kept; `false` passes `--no-session-persistence` and core hands the transcript over instead.
   */
  persistSessions?: boolean;
  /**
   * `MAX_STRUCTURED_OUTPUT_RETRIES` for JSON answers: the total number of answers Claude Code asks
   * for before it gives up on a schema (default 1; its own default is 5). Core checks every answer
   * and runs one repair turn, so retrying here too would multiply the model calls.
   */
  structuredAttempts?: number;
  /**
   * How system messages reach Claude Code: `replace` its system prompt, or `append` to it. `auto`
   * (default) replaces when no tools are enabled (a plain chat) and appends otherwise, keeping
   * Claude Code's tool instructions.
   */
  systemPrompt?: 'auto' | 'replace' | 'append';
  /** Bound on `claude --version` (default 10 s). */
  detectTimeoutMs?: number;
  /** Bound on `claude auth status` (default 15 s). */
  authTimeoutMs?: number;
  /**
   * Keep Claude Code processes warm between chats (default true): a chat then answers without
   * Claude Code's start-up. `warmIdleMs` (core config) bounds their idle time; 0 turns them off.
   */
  warm?: boolean;
  /** Most warm processes alive at once (default 4, core's default concurrency for an agent). */
  warmMaxProcesses?: number;
}
