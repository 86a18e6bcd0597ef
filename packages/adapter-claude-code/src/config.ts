import { adapterConfig } from '@toolbridge/adapter-kit';
import type { PermissionLevel } from '@toolbridge/core';

export const TOOL_ID = 'claude-code';

/**
 * How much of Claude Code's toolbox a chat may use. `none` is a plain chat: no file reads, no
 * edits, no shell. `edit` is workspace-write without the shell; `workspace-write` adds Bash (its
 * commands confined by Claude Code's own checks, see the README).
 */
export type ClaudeCodeToolAccess = 'none' | 'read-only' | 'edit' | 'workspace-write' | 'full';

export const TOOL_ACCESS_VALUES: readonly ClaudeCodeToolAccess[] = ['none', 'read-only', 'edit', 'workspace-write', 'full'];

/** The config keys Claude Code owns: `claudeCodeModel`, `claudeCodeMaxTurns`, `claudeCodeWarm`, `claudeCodeToolAccess`. */
export const claudeCodeConfig = adapterConfig(TOOL_ID, {
  model: {
    type: 'string',
    minLength: 1,
    description: 'Model for Claude Code (`--model`): an alias such as sonnet, opus, haiku, or a full model name.',
  },
  maxTurns: { type: 'integer', minimum: 1, description: 'Upper bound on agent turns per chat (`--max-turns`).' },
  warm: {
    type: 'boolean',
    description:
      'Keep Claude Code processes warm between chats (default true): a chat then skips its start-up. warmIdleMs (general) bounds their idle time; 0 there turns warm mode off for every tool.',
  },
  toolAccess: {
    type: 'string',
    enum: TOOL_ACCESS_VALUES,
    description:
      'Tools Claude Code may use when a chat asks for no permission level: none (plain chat), read-only (Read/Glob/Grep), edit (plus Edit/Write/NotebookEdit inside the working directories, no shell), workspace-write (edit plus Bash, commands checked by Claude Code), full (every tool, unconfined).',
  },
});

export const claudeCodeConfigSchema = claudeCodeConfig.schema;

/** The tool access a permission level maps to. */
export const ACCESS_OF: Readonly<Record<PermissionLevel, ClaudeCodeToolAccess>> = {
  'read-only': 'read-only',
  'workspace-write': 'workspace-write',
  full: 'full',
};

/** The permission level a tool access stays within (`none` grants less than read-only, `edit` less than workspace-write). */
export const LEVEL_OF: Readonly<Record<ClaudeCodeToolAccess, PermissionLevel>> = {
  none: 'read-only',
  'read-only': 'read-only',
  edit: 'workspace-write',
  'workspace-write': 'workspace-write',
  full: 'full',
};
