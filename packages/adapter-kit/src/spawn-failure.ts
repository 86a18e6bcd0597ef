import { ProviderExecutionError, ToolUnavailableError, type ToolbridgeError } from '@toolbridge/core';

/** A tool that could not be started: "not installed" for a command not on PATH. */
export function spawnFailure(e: NodeJS.ErrnoException, command: string, toolId?: string): ToolbridgeError {
  if (e.code === 'ENOENT') {
    return new ToolUnavailableError(`${command} is not installed (command "${command}" was not found on PATH)`, {
      toolId,
      cause: e,
      details: { notInstalled: true },
    });
  }
  return new ToolUnavailableError(`${command} could not be started: ${e.message}`, { toolId, cause: e });
}

/** A started process's `error` event as the run's error: a tool that could not be run at all. */
export function runFailure(e: NodeJS.ErrnoException, command: string, label: string, toolId?: string): ToolbridgeError {
  if (e.code === 'ENOENT' || e.code === 'EACCES') return spawnFailure(e, command, toolId);
  return new ProviderExecutionError(`${label} could not be run: ${e.message}`, { toolId, cause: e });
}
