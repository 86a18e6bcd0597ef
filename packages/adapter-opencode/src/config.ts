import { adapterConfig } from '@toolbridge/adapter-kit';
import type { ToolbridgeConfig } from '@toolbridge/core';

export const TOOL_ID = 'opencode';

/** `provider/model`; never starting with `-`, so it cannot be read as an option of `opencode run`. */
const MODEL_PATTERN = '^[A-Za-z0-9_.@][^/\\s]*/\\S+$';
export const MODEL_RE = new RegExp(MODEL_PATTERN);

/** The config key OpenCode owns: `opencodeModel`. */
export const opencodeConfig = adapterConfig(TOOL_ID, {
  model: {
    type: 'string',
    description: 'OpenCode model as provider/model, e.g. opencode/big-pickle or anthropic/claude-sonnet-4-5',
    pattern: MODEL_PATTERN,
    env: ['TOOLBRIDGE_OPENCODE_MODEL'],
  },
});

export const configSchema = opencodeConfig.schema;

export function configuredModel(config: Readonly<ToolbridgeConfig>): string | undefined {
  return opencodeConfig.read(config).model;
}
