import { adapterConfig } from '@toolbridge/adapter-kit';
import type { PermissionLevel } from '@toolbridge/core';

export const TOOL_ID = 'gemini';
export const NAME = 'Gemini CLI';

/** The config key Gemini CLI owns: `geminiModel`. */
export const geminiConfig = adapterConfig(TOOL_ID, {
  model: {
    type: 'string',
    minLength: 1,
    description:
      'Model for Gemini CLI (`gemini -m`, e.g. `gemini-2.5-flash`); when unset, the model of your Gemini settings, else its own `auto` routing.',
  },
});

export const geminiConfigSchema = geminiConfig.schema;

/** Gemini CLI's approval modes, as `--approval-mode` takes them. */
export type GeminiApprovalMode = 'default' | 'auto_edit' | 'yolo';

/**
 * Permission levels as approval modes. Headless, a tool that would need a confirmation is not
 * offered to the model at all, so `default` is read-only in practice and `auto_edit` adds the file
 * editors (confined to the workspace directories) but not the shell. The admin policy of
 * `policy.ts` makes both exact against the user's own saved approvals.
 */
export const APPROVAL_MODE_OF: Readonly<Record<PermissionLevel, GeminiApprovalMode>> = {
  'read-only': 'default',
  'workspace-write': 'auto_edit',
  full: 'yolo',
};
