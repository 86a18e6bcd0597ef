export * from './fake-bin.js';
export * from './fake-machine.js';
export * from './fake-ollama.js';
export * from './processes.js';
export * from './real-clis.js';
export * from './conformance.js';
export * from './adapter-harness.js';
export * from './stream-from.js';
