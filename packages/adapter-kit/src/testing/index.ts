/** The kit's test helpers: a whole example adapter for a fifth tool over a fake CLI. */
export { createEchoAgentAdapter, echoAgentScript } from './example-adapter.js';
