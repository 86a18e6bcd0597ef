export { createClaudeCodeAdapter, CLAUDE_CODE_MODEL_ALIASES, type ClaudeCodeAdapterOptions } from './adapter.js';
export { claudeCodeConfigSchema, TOOL_ACCESS_VALUES, type ClaudeCodeToolAccess } from './config.js';
export { TOOL_ID as CLAUDE_CODE_TOOL_ID } from './stream-parser.js';
