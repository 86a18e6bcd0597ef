import { stripAnsi } from '@toolbridge/adapter-kit';
import { InvalidRequestError, type ToolbridgeConfig } from '@toolbridge/core';
import { configuredModel, MODEL_RE, TOOL_ID } from './config.js';

export function isModelId(value: string): boolean {
  return MODEL_RE.test(value);
}

/** The model a chat runs with: the request's, else the configured one, else OpenCode's own default. */
export function modelFor(requested: string | undefined, config: Readonly<ToolbridgeConfig>): string | undefined {
  if (requested !== undefined) {
    if (!isModelId(requested)) {
      throw new InvalidRequestError(`OpenCode model must be "provider/model" (got "${requested}")`, { toolId: TOOL_ID });
    }
    return requested;
  }
  return configuredModel(config);
}

export function providerOf(model: string | undefined): string | undefined {
  if (!model) return undefined;
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash) : undefined;
}

/** `opencode models` prints one `provider/model` per line; anything else (banners, warnings) is skipped. */
export function parseModels(stdout: string): string[] {
  const seen = new Set<string>();
  for (const raw of stripAnsi(stdout).split('\n')) {
    const line = raw.trim();
    if (isModelId(line)) seen.add(line);
  }
  return [...seen];
}
