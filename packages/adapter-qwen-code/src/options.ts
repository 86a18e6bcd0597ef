/** Options of `createQwenCodeAdapter()`. */
export interface QwenCodeAdapterOptions {
  /** Executable to run (default `qwen`, looked up on the call's PATH). */
  command?: string;
  /**
   * Node.js (>= 22) to run Qwen Code with. Default: the `qwenCodeNode` config key, else
   * `TOOLBRIDGE_QWEN_NODE`, else the `node` on the call's PATH when it is new enough.
   */
  node?: string;
  /** Bound on `qwen --version` and `node --version` (default 15 s: Qwen Code's start-up is slow). */
  detectTimeoutMs?: number;
  /** Extra argv appended to every chat run (never put prompts here). */
  extraArgs?: readonly string[];
  /**
   * Keep Qwen Code processes warm between chats (default true), on its stream-json input. A chat
   * then answers without Qwen Code's start-up. `warmIdleMs` (core config) bounds their idle time.
   */
  warm?: boolean;
  /** Most warm processes alive at once (default 4, core's default concurrency for an agent). */
  warmMaxProcesses?: number;
}
