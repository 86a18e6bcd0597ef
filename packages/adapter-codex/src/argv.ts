import type { CodexSandboxMode } from './config.js';

/** `codex exec` argv. The prompt is not in it: `-` makes Codex read it from stdin. */
export function buildExecArgs(opts: {
  sandbox: CodexSandboxMode;
  model?: string;
  ephemeral?: boolean;
  shellSnapshot?: boolean;
  extraArgs?: readonly string[];
}): string[] {
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--sandbox',
    opts.sandbox,
    ...(opts.model ? ['-m', opts.model] : []),
    ...(opts.ephemeral ? ['--ephemeral'] : []),
    // A config override rather than `--disable`: unknown keys are ignored, unknown flags are fatal.
    ...(opts.shellSnapshot ? [] : ['-c', 'features.shell_snapshot=false']),
    ...(opts.extraArgs ?? []),
    '-',
  ];
}
