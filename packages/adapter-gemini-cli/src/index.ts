export { createGeminiCliAdapter, GEMINI_MODEL_ALIASES } from './adapter.js';
export type { GeminiCliAdapterOptions } from './options.js';
export { buildArgs, type GeminiArgs } from './argv.js';
export { checkGeminiAuth, selectedAuthType } from './auth.js';
export { APPROVAL_MODE_OF, geminiConfig, geminiConfigSchema, type GeminiApprovalMode } from './config.js';
export { GeminiEventParser, usageOf } from './events.js';
export { classifyFailure, RetryWatch, suggestedRetryMs } from './failures.js';
export { DENIED_TOOLS, policyToml } from './policy.js';
