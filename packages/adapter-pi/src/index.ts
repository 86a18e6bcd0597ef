export { createPiAdapter } from './adapter.js';
export type { PiAdapterOptions } from './options.js';
