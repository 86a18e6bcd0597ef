export { createCopilotCliAdapter } from './adapter.js';
export type { CopilotCliAdapterOptions } from './options.js';
