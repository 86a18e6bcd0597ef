export { createCopilotCliAdapter } from './adapter.js';
export type { CopilotCliAdapterOptions } from './options.js';
export { buildArgs, type CopilotArgs } from './argv.js';
export { checkCopilotAuth, deviceCodeOf, parseConfigJson } from './auth.js';
export { platformPackages, resolveCopilotBinary } from './binary.js';
export { copilotConfig, copilotConfigSchema, PERMISSION_FLAGS } from './config.js';
export { CopilotEventParser } from './events.js';
export { classifyCallFailure, classifySessionError, classifyStartupFailure, waitMsOf } from './failures.js';
export { readUsageFile, usageFromReport } from './usage.js';
