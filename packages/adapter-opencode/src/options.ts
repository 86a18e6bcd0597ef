/** Options of `createOpenCodeAdapter()`. */
export interface OpenCodeAdapterOptions {
  /** The executable to run (default `opencode`, looked up on the call's PATH). */
  command?: string;
  /** Extra arguments for `opencode run`, placed after the adapter's own (e.g. `['--agent', 'plan']`). */
  extraArgs?: readonly string[];
  /** Bound on `opencode --version` during detection (default 8000 ms; it takes ~1.2 s, several seconds on a loaded machine). */
  versionTimeoutMs?: number;
  /**
   * Bound on `opencode models` during detection (default 8000 ms; it takes 2–4 s). Health checks run
   * detection too, within the registry's health bound (10 s by default), so keep this below it.
   */
  modelsTimeoutMs?: number;
  /** Bound on `opencode auth list` (default 10 000 ms; it takes ~2 s). */
  authTimeoutMs?: number;
  /**
   * Answer chats on a long-lived `opencode serve` (default true): lazily started, shut down after
   * the `warmIdleMs` config key (default 5 minutes; 0 = always spawn `opencode run`).
   */
  warm?: boolean;
  /**
   * Directories one warm server may serve before it is replaced (default 16): OpenCode keeps an
   * instance per directory and does not give its memory back; a chat without `cwd` gets a new one.
   */
  warmMaxDirectories?: number;
}

export interface ResolvedOptions {
  command: string;
  extraArgs: readonly string[];
  versionTimeoutMs: number;
  modelsTimeoutMs: number;
  authTimeoutMs: number;
  warm: boolean;
  warmMaxDirectories: number;
}

export function resolveOptions(options: OpenCodeAdapterOptions): ResolvedOptions {
  return {
    command: options.command ?? 'opencode',
    extraArgs: [...(options.extraArgs ?? [])],
    versionTimeoutMs: options.versionTimeoutMs ?? 8_000,
    modelsTimeoutMs: options.modelsTimeoutMs ?? 8_000,
    authTimeoutMs: options.authTimeoutMs ?? 10_000,
    warm: options.warm !== false,
    warmMaxDirectories: options.warmMaxDirectories ?? 16,
  };
}
