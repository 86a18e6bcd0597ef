import { ProviderExecutionError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';

/**
 * The user's `OPENCODE_CONFIG_CONTENT` (providers, models) as an object, to merge our sections
 * into; `what` says what could not be added when it is not a JSON object.
 */
export function userConfigContent(env: NodeJS.ProcessEnv, what: string): Record<string, unknown> {
  const raw = env.OPENCODE_CONFIG_CONTENT;
  if (!raw || !raw.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new ProviderExecutionError(`OPENCODE_CONFIG_CONTENT is not a JSON object, so ${what} cannot be added to it`, { toolId: TOOL_ID });
}
