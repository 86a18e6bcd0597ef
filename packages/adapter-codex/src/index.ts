export {
  buildExecArgs,
  codexConfigSchema,
  CODEX_SANDBOX_MODES,
  createCodexAdapter,
  parseLoginStatus,
  parseVersion,
  type CodexAdapterOptions,
  type CodexSandboxMode,
} from './adapter.js';
export { classifyFailure, parseRetryAt } from './classify.js';
export { CodexEventParser, progressOf } from './events.js';
export { readUsageLimits, usageLimitsFromLine, windowName, type ReadUsageLimitsOptions } from './usage-limits.js';
