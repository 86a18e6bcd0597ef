import { adapterConfig } from '@toolbridge/adapter-kit';
import type { PermissionLevel } from '@toolbridge/core';

export const TOOL_ID = 'qwen-code';
export const NAME = 'Qwen Code';

/** Qwen Code's `--approval-mode` values. */
export type QwenApprovalMode = 'plan' | 'default' | 'auto-edit' | 'auto' | 'yolo';

/**
 * The approval mode a permission level runs with. `plan` refuses every edit and shell command;
 * `auto-edit` approves edits (Qwen Code's file tools stay inside the workspace directories) and
 * leaves shell commands to an approval, which a headless run without a host refuses; `yolo` runs
 * everything.
 */
export const APPROVAL_MODE_OF: Readonly<Record<PermissionLevel, QwenApprovalMode>> = {
  'read-only': 'plan',
  'workspace-write': 'auto-edit',
  full: 'yolo',
};

/** The config keys Qwen Code owns: `qwenCodeModel`, `qwenCodeNode`, `qwenCodeWarm`. */
export const qwenCodeConfig = adapterConfig(TOOL_ID, {
  model: { type: 'string', minLength: 1, description: 'Model for Qwen Code (`--model`); default: the `model.name` of its settings.' },
  node: {
    type: 'string',
    minLength: 1,
    description:
      'Node.js (>= 22) to run Qwen Code with, when the `node` on PATH is older (Qwen Code needs Node 22). Also TOOLBRIDGE_QWEN_NODE.',
  },
  warm: {
    type: 'boolean',
    description:
      'Keep Qwen Code processes warm between chats (default true): a chat then skips its start-up. warmIdleMs (general) bounds their idle time; 0 there turns warm mode off for every tool.',
  },
});

export const qwenCodeConfigSchema = qwenCodeConfig.schema;
