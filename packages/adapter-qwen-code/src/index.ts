export { createQwenCodeAdapter } from './adapter.js';
export type { QwenCodeAdapterOptions } from './options.js';
export { qwenCodeConfig, qwenCodeConfigSchema, TOOL_ID as QWEN_CODE_TOOL_ID } from './config.js';
export { checkQwenAuth } from './auth.js';
export { QwenStreamParser } from './events.js';
export { classifyFailure } from './failures.js';
