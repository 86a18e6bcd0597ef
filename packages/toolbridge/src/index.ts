export * from '@toolbridge/core';
export { createOrchestrator, type FallbackOptions, type FallbackStreamEvent, type Orchestrator } from '@toolbridge/orchestrator';
export * from './toolbridge.js';
export * from './default.js';
