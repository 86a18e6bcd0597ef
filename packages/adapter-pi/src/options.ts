/** Options of `createPiAdapter()`. */
export interface PiAdapterOptions {
  /** The Pi executable (default `pi`, looked up on the call's PATH). */
  command?: string;
  /**
   * The user's own Pi directory (default `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`): its
   * `auth.json` (logins), `models.json` (custom providers) and `settings.json` are read, never written.
   */
  agentDir?: string;
  /**
   * The directory Toolbridge runs Pi with (`PI_CODING_AGENT_DIR` of every run; default
   * `$XDG_STATE_HOME/toolbridge/pi/<hash of agentDir>`, else under `~/.local/state`): our
   * `settings.json` (the user's, with retries off), links to the user's `auth.json` and
   * `models.json`, the enforcing extension, and the sessions Toolbridge starts.
   */
  runtimeDir?: string;
  /**
   * Answer chats from a warm `pi --mode rpc` process (default true; the `warmIdleMs` config key
   * sets its idle time, 0 turns it off). False: every chat spawns `pi --mode json`.
   */
  warm?: boolean;
  /** Bound on `pi --version` and `pi --list-models` (default 15 s). */
  versionTimeoutMs?: number;
}
