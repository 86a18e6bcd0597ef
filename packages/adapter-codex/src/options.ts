/** Options of `createCodexAdapter()`. */
export interface CodexAdapterOptions {
  /** The Codex executable (default `codex`, looked up on the call's PATH). */
  command?: string;
  /**
   * Extra argv for `codex exec`, inserted just before the final `-` (e.g.
   * `['-c', 'model_provider=mock', ...]`). Never put a prompt here.
   */
  extraArgs?: readonly string[];
  /** Codex's home (default `$CODEX_HOME`, else `~/.codex`), where session logs are read from. */
  codexHome?: string;
  /**
   * Pass `--ephemeral` so Codex writes no session log (default false). The usage windows come
   * from those logs, so ephemeral runs never refresh them, and their sessions cannot be continued.
   */
  ephemeral?: boolean;
  /**
   * Let Codex snapshot the user's login shell before a run (default false). The snapshot shell
   * runs in its own session, beyond the reach of a process-group kill, so it is off unless asked for.
   */
  shellSnapshot?: boolean;
  /**
   * Offer the model Codex's `update_plan` tool (default true; Codex 0.169 leaves it off unless
   * `tools.update_plan.enabled` is set), so the agent's plan shows up as `plan` activity.
   */
  planTool?: boolean;
  /**
   * Answer chats from a warm `codex app-server` (default true; the `warmIdleMs` config key sets its
   * idle time, 0 turns it off). False: every chat spawns `codex exec`.
   */
  warm?: boolean;
  /** A `codex login` started by `startAuth()` is ended after this long (default 10 minutes). */
  loginTtlMs?: number;
  /** How long `startAuth()` waits for the login's sign-in URL (default 5 s). */
  loginOutputWaitMs?: number;
  /** Bound on `codex --version` and `codex login status` (default 10 s). */
  versionTimeoutMs?: number;
  /** Cap on one run's stdout (default 32 MiB); beyond it the run fails. */
  maxOutputBytes?: number;
  /** How many of the newest session files `usageLimits()` looks into (default 5). */
  usageMaxFiles?: number;
  /** How many bytes from the end of each session file `usageLimits()` reads (default 256 KiB). */
  usageTailBytes?: number;
}
