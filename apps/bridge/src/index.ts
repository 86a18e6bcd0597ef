export { createServer, startServer, type BridgeServer, type RunningBridge } from './server.js';
export { DEFAULT_BODY_LIMIT, DEFAULT_HOST, DEFAULT_PORT, type BridgeOptions } from './options.js';
export { stderrLogger, silentLogger, type BridgeLogger, type RequestLogEntry } from './logger.js';
export { buildOpenApiDocument } from './openapi.js';
export { authRequestSchema, fallbackChatRequestSchema, toolChatRequestSchema } from './schemas.js';
export { bridgeVersion } from './version.js';
