import { InvalidRequestError, stripAnsi, type ConfigKeySchema, type ToolbridgeConfig } from '@toolbridge/core';

export const TOOL_ID = 'opencode';

/** `provider/model`; never starting with `-`, so it cannot be read as an option of `opencode run`. */
const MODEL_PATTERN = '^[A-Za-z0-9_.@][^/\\s]*/\\S+$';
const MODEL_RE = new RegExp(MODEL_PATTERN);

export const configSchema: Readonly<Record<string, ConfigKeySchema>> = {
  opencodeModel: {
    type: 'string',
    description: 'OpenCode model as provider/model, e.g. opencode/big-pickle or anthropic/claude-sonnet-4-5',
    pattern: MODEL_PATTERN,
    env: ['TOOLBRIDGE_OPENCODE_MODEL'],
  },
};

export function isModelId(value: string): boolean {
  return MODEL_RE.test(value);
}

export function configuredModel(config: Readonly<ToolbridgeConfig>): string | undefined {
  const m = config.opencodeModel;
  return typeof m === 'string' && m.length > 0 ? m : undefined;
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

/** `opencode --version` prints the bare version; keep the version-looking part of its first line. */
export function parseVersion(stdout: string): string | undefined {
  const first = stripAnsi(stdout)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!first) return undefined;
  return /\d+\.\d+(\.\d+)?[\w.+-]*/.exec(first)?.[0] ?? first;
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
