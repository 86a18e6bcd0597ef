export * from './fake-bin.js';
export * from './processes.js';
export * from './real-clis.js';
export * from './conformance.js';
