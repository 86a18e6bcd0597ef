import { ProviderExecutionError, ToolbridgeError } from '@toolbridge/core';

/**
 * What a tool's run failed with: a typed error passes as it is; anything else (a bug, an I/O
 * error) becomes a ProviderExecutionError naming the tool. Which error wins when the caller's
 * signal aborted is core's decision (`failureOf`), made once around every adapter call.
 */
export function toolFailure(error: unknown, name: string, toolId: string): ToolbridgeError {
  if (ToolbridgeError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderExecutionError(`${name} failed: ${message}`, { toolId, cause: error });
}
