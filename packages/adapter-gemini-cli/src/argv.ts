import type { GeminiApprovalMode } from './config.js';

export interface GeminiArgs {
  approvalMode: GeminiApprovalMode;
  model?: string;
  /** An admin policy file denying what the permission level does not allow. */
  policyFile?: string;
  /** Continue this session (`--resume <id>`). */
  resume?: string;
  /** Start a new session from a copy of this session file (`--session-file`): a fork. */
  sessionFile?: string;
  /** More workspace directories: the caller's additional dirs, and the call's images. */
  includeDirectories?: readonly string[];
}

/**
 * `gemini` argv for one headless turn. The prompt is not in it: without `-p`, Gemini reads it
 * from stdin (which is closed after it). `--skip-trust` trusts the working directory for this run
 * only; without it a headless run in a folder the user never trusted stops before any request.
 */
export function buildArgs(a: GeminiArgs): string[] {
  return [
    '--output-format',
    'stream-json',
    '--skip-trust',
    '--approval-mode',
    a.approvalMode,
    ...(a.model ? ['--model', a.model] : []),
    ...(a.policyFile ? ['--admin-policy', a.policyFile] : []),
    ...(a.resume ? ['--resume', a.resume] : []),
    ...(a.sessionFile ? ['--session-file', a.sessionFile] : []),
    ...(a.includeDirectories ?? []).flatMap((d) => ['--include-directories', d]),
  ];
}
