import type { CallOptions, ChatRequest, ToolbridgeConfig } from '@toolbridge/core';
import { createToolbridge, type ChatOptions, type Toolbridge } from './toolbridge.js';

let instance: Toolbridge | undefined;

/** The process-wide instance behind the top-level functions, created on first use. */
export function getDefaultToolbridge(): Toolbridge {
  return (instance ??= createToolbridge());
}

export const discover = (options?: { refresh?: boolean }) => getDefaultToolbridge().discover(options);
export const connect = (toolId: string) => getDefaultToolbridge().connect(toolId);
export const chat = (request: ChatRequest, options: ChatOptions) => getDefaultToolbridge().chat(request, options);
export const configure = (config: ToolbridgeConfig) => getDefaultToolbridge().configure(config);
export const getConfig = () => getDefaultToolbridge().getConfig();
export const checkAllToolsHealth = (options?: CallOptions) => getDefaultToolbridge().checkAllToolsHealth(options);
