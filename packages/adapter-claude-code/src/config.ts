import type { ConfigKeySchema, ToolbridgeConfig } from '@toolbridge/core';

/**
 * How much of Claude Code's toolbox a chat may use. The default, `none`, is a
 * plain chat: no file reads, no edits, no shell.
 */
export type ClaudeCodeToolAccess = 'none' | 'read-only' | 'edit' | 'full';

export const TOOL_ACCESS_VALUES: readonly ClaudeCodeToolAccess[] = ['none', 'read-only', 'edit', 'full'];

/** The config keys this adapter owns. */
export const claudeCodeConfigSchema: Readonly<Record<string, ConfigKeySchema>> = {
  claudeCodeModel: {
    type: 'string',
    minLength: 1,
    description: 'Model for Claude Code (`--model`): an alias such as sonnet, opus, haiku, or a full model name.',
  },
  claudeCodeMaxTurns: {
    type: 'integer',
    minimum: 1,
    description: 'Upper bound on agent turns per chat (`--max-turns`).',
  },
  claudeCodeToolAccess: {
    type: 'string',
    enum: TOOL_ACCESS_VALUES,
    description:
      'Tools Claude Code may use: none (default, plain chat), read-only (Read/Glob/Grep), edit (plus Edit/Write/NotebookEdit, edits auto-accepted), full (all tools, permission checks bypassed).',
  },
};

export interface EffectiveSettings {
  model?: string;
  maxTurns?: number;
  toolAccess: ClaudeCodeToolAccess;
}

/** Read this adapter's keys from the effective config (already validated by the store). */
export function settingsFrom(config: Readonly<ToolbridgeConfig>): EffectiveSettings {
  const model = typeof config.claudeCodeModel === 'string' && config.claudeCodeModel.length > 0 ? config.claudeCodeModel : undefined;
  const maxTurns =
    typeof config.claudeCodeMaxTurns === 'number' && Number.isInteger(config.claudeCodeMaxTurns) && config.claudeCodeMaxTurns >= 1
      ? config.claudeCodeMaxTurns
      : undefined;
  const access = config.claudeCodeToolAccess;
  const toolAccess = TOOL_ACCESS_VALUES.includes(access as ClaudeCodeToolAccess) ? (access as ClaudeCodeToolAccess) : 'none';
  return { model, maxTurns, toolAccess };
}
