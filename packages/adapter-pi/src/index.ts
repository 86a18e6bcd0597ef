export { createPiAdapter } from './adapter.js';
export type { PiAdapterOptions } from './options.js';
export { piConfig, THINKING_LEVELS } from './config.js';
export { classifyErrorMessage } from './failures.js';
export { parseModelList } from './detect.js';
export { PiTurn } from './events.js';
