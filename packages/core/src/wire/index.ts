/**
 * The wire contract: JSON Schemas of everything the library returns and the bridge sends or
 * accepts, with their TypeScript types derived from them. Type-only consumers (the dashboard)
 * import from here; nothing in this folder may use Node APIs.
 */
export * from './common.js';
export * from './tool.js';
export * from './health.js';
export * from './chat.js';
export * from './session.js';
export * from './errors.js';
export * from './approvals.js';
export * from './usage.js';
