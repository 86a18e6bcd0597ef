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

/** What `opencode models [provider] --verbose` says: the model ids, in order, and which take images. */
export interface ModelCatalog {
  models: string[];
  /** Models whose `capabilities.input.image` is true. */
  vision: Set<string>;
}

/**
 * `opencode models` prints one `provider/model` per line; with `--verbose` each is followed by its
 * JSON (`capabilities.input.image` says whether it takes images). Anything else (banners,
 * warnings) is skipped.
 */
export function parseModels(stdout: string): ModelCatalog {
  const seen = new Set<string>();
  const vision = new Set<string>();
  let current: string | undefined;
  let json: string[] = [];
  const flush = () => {
    if (current && json.length) {
      try {
        const info = JSON.parse(json.join('\n')) as { capabilities?: { input?: { image?: unknown } } };
        if (info.capabilities?.input?.image === true) vision.add(current);
      } catch {
        // Not the JSON we know: the model is listed without capabilities.
      }
    }
    json = [];
  };
  for (const raw of stripAnsi(stdout).split('\n')) {
    const line = raw.trim();
    if (json.length === 0 && isModelId(line)) {
      current = line;
      seen.add(line);
    } else if (current && (json.length > 0 || line === '{')) {
      json.push(raw);
      if (raw === '}') flush();
    }
  }
  return { models: [...seen], vision };
}
