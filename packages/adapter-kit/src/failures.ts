import { ProviderExecutionError, ToolbridgeError } from '@toolbridge/core';
import type { LineProcessExit } from './line-process.js';

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

/**
 * The words for a run that ended without an answer: `<name> ended without a result (it exited with
 * code 1)`, or, when every line it printed was something else than its `format`, `<name> printed
 * output that is not <format> (it was killed by SIGKILL)`.
 */
export function endedWithoutResult(name: string, exit: Pick<LineProcessExit, 'exitCode' | 'signal'>, notFormat?: string): string {
  const { exitCode, signal } = exit;
  const how = signal ? `was killed by ${signal}` : exitCode !== 0 ? `exited with code ${exitCode}` : 'exited';
  const what = notFormat ? `printed output that is not ${notFormat}` : 'ended without a result';
  return `${name} ${what} (it ${how})`;
}
