export { createCodexAdapter } from './adapter.js';
export type { CodexAdapterOptions } from './options.js';
export { buildExecArgs } from './argv.js';
export { parseLoginStatus } from './auth.js';
export { codexConfig, codexConfigSchema, CODEX_SANDBOX_MODES, type CodexSandboxMode } from './config.js';
export { classifyFailure, parseRetryAt } from './failures.js';
export { activityOf, CodexEventParser } from './events.js';
export { readUsageLimits, usageLimitsFromLine, windowName, type ReadUsageLimitsOptions } from './usage-limits.js';
