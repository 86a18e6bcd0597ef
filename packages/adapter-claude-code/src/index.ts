export { createClaudeCodeAdapter, CLAUDE_CODE_MODEL_ALIASES } from './adapter.js';
export type { ClaudeCodeAdapterOptions } from './options.js';
export {
  claudeCodeConfig,
  claudeCodeConfigSchema,
  TOOL_ACCESS_VALUES,
  TOOL_ID as CLAUDE_CODE_TOOL_ID,
  type ClaudeCodeToolAccess,
} from './config.js';
export { parseAuthStatus } from './auth.js';
export { StreamParser } from './events.js';
export { classifyFailure } from './failures.js';
