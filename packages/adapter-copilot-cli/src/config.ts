import { adapterConfig } from '@toolbridge/adapter-kit';
import type { PermissionLevel } from '@toolbridge/core';

export const TOOL_ID = 'copilot';
export const NAME = 'Copilot CLI';

/** The config key Copilot CLI owns: `copilotModel`. */
export const copilotConfig = adapterConfig(TOOL_ID, {
  model: {
    type: 'string',
    minLength: 1,
    description:
      'Model for Copilot CLI (`copilot --model`, e.g. `gpt-5.4` or `auto`); when unset, COPILOT_MODEL or the model of your Copilot settings.',
  },
});

export const copilotConfigSchema = copilotConfig.schema;

/**
 * Permission levels as Copilot's permission flags. Headless nobody can approve anything, so a
 * call that would need approval is denied; deny rules win over every allow (saved approvals,
 * `--allow-all-tools`). The shell is denied below `full`: Copilot checks the paths a command
 * names, heuristically, but cannot confine what it does. `--disallow-temp-dir` keeps file access
 * to the working directory (and `--add-dir`s) instead of also the system temp dir.
 */
export const PERMISSION_FLAGS: Readonly<Record<PermissionLevel, readonly string[]>> = {
  'read-only': ['--deny-tool=write', '--deny-tool=shell', '--disallow-temp-dir'],
  'workspace-write': ['--allow-tool=write', '--deny-tool=shell', '--disallow-temp-dir'],
  full: ['--yolo'],
};

/** What a level cannot grant exactly, for `result.metadata.permissions.note`. */
export const PERMISSION_NOTES: Readonly<Partial<Record<PermissionLevel, string>>> = {
  'read-only': 'the shell is denied below full: Copilot cannot confine a command to reading',
  'workspace-write': 'the shell is denied below full: Copilot cannot confine a command to the workspace',
};
