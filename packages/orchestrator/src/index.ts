export * from './orchestrator.js';
