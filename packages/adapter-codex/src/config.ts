import { adapterConfig } from '@toolbridge/adapter-kit';
import type { PermissionLevel } from '@toolbridge/core';

export const TOOL_ID = 'codex';

export const CODEX_SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type CodexSandboxMode = (typeof CODEX_SANDBOX_MODES)[number];

/** The config keys Codex owns: `codexModel`, `codexSandbox`. */
export const codexConfig = adapterConfig(TOOL_ID, {
  model: { type: 'string', minLength: 1, description: 'Model for Codex (`codex exec -m`); Codex picks its own default when unset.' },
  sandbox: {
    type: 'string',
    enum: CODEX_SANDBOX_MODES,
    description: 'Default sandbox for commands Codex runs (`--sandbox`) when a chat asks for no permission level; read-only unless set.',
  },
  profile: {
    type: 'string',
    minLength: 1,
    pattern: '^[A-Za-z0-9_.-]+$',
    description: 'Codex profile (`codex exec -p`): layers `$CODEX_HOME/<profile>.config.toml` over `config.toml` (model, provider, ...).',
  },
});

export const codexConfigSchema = codexConfig.schema;

/** Permission levels and Codex's sandboxes are the same three steps. */
export const SANDBOX_OF: Readonly<Record<PermissionLevel, CodexSandboxMode>> = {
  'read-only': 'read-only',
  'workspace-write': 'workspace-write',
  full: 'danger-full-access',
};

export const LEVEL_OF: Readonly<Record<CodexSandboxMode, PermissionLevel>> = {
  'read-only': 'read-only',
  'workspace-write': 'workspace-write',
  'danger-full-access': 'full',
};
