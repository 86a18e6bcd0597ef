import type { ChatRequest, ToolbridgeConfig } from '@toolbridge/core';
import type { CallOptions, HealthOptions } from '@toolbridge/core/runtime';
import { createToolbridge, type ChatOptions, type Toolbridge } from './toolbridge.js';

let instance: Toolbridge | undefined;

/** The process-wide instance behind the top-level functions, created on first use. */
export function getDefaultToolbridge(): Toolbridge {
  return (instance ??= createToolbridge());
}

export const discover = (options?: { refresh?: boolean }) => getDefaultToolbridge().discover(options);
export const connect = (toolId: string) => getDefaultToolbridge().connect(toolId);
export const chat = (request: ChatRequest, options?: ChatOptions) => getDefaultToolbridge().chat(request, options);
export const streamChat = (request: ChatRequest, options?: ChatOptions) => getDefaultToolbridge().streamChat(request, options);
export const chatWith = (toolId: string, request: ChatRequest, options?: CallOptions) =>
  getDefaultToolbridge().chatWith(toolId, request, options);
export const streamWith = (toolId: string, request: ChatRequest, options?: CallOptions) =>
  getDefaultToolbridge().streamWith(toolId, request, options);
/** Sessions of the default instance. */
export const sessions = {
  list: () => getDefaultToolbridge().sessions.list(),
  get: (sessionId: string) => getDefaultToolbridge().sessions.get(sessionId),
  delete: (sessionId: string) => getDefaultToolbridge().sessions.delete(sessionId),
};
export const configure = (config: ToolbridgeConfig) => getDefaultToolbridge().configure(config);
export const getConfig = () => getDefaultToolbridge().getConfig();
export const checkHealth = (toolId: string, options?: HealthOptions) => getDefaultToolbridge().checkHealth(toolId, options);
export const checkAllToolsHealth = (options?: HealthOptions) => getDefaultToolbridge().checkAllToolsHealth(options);

/** Close the default instance (killing in-flight tool processes); the next call creates a fresh one. */
export async function closeDefaultToolbridge(): Promise<void> {
  const current = instance;
  instance = undefined;
  await current?.close();
}
