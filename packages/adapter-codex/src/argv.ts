import type { CodexSandboxMode } from './config.js';

export interface ExecArgs {
  sandbox: CodexSandboxMode;
  model?: string;
  /** `-p <profile>`: `$CODEX_HOME/<profile>.config.toml` layered over `config.toml`. */
  profile?: string;
  ephemeral?: boolean;
  shellSnapshot?: boolean;
  /** `--add-dir`: more writable folders beside the working directory. */
  addDirs?: readonly string[];
  /** Config overrides that narrow the sandbox to the permission level (see permissions.ts), as `-c key=value`. */
  sandboxConfig?: Readonly<Record<string, boolean>>;
  /** Offer the model Codex's `update_plan` tool (off in Codex 0.169 unless enabled), so plans show as activity. */
  planTool?: boolean;
  /** `--output-schema <file>`: the answer's JSON Schema, sent to the model as a strict `json_schema` format. */
  outputSchema?: string;
  /** `--image=<file>` for each image. */
  images?: readonly string[];
  /** Continue (`resume`) or branch (`fork`) a thread instead of starting one. */
  resume?: { threadId: string; fork: boolean };
  /** More config overrides, `key -> TOML value` (the chat's MCP servers). */
  config?: Readonly<Record<string, string>>;
  extraArgs?: readonly string[];
}

/**
 * `codex exec` argv. The prompt is not in it: `-` makes Codex read it from stdin.
 *
 * Every option stands before `resume`/`fork`: after the subcommand Codex 0.169 accepts only a few
 * (`--sandbox` there is "unexpected argument", exit 2), while before it they all apply to the
 * continued thread (measured: sandbox, `--add-dir`, `-m`, `--output-schema`, `--image`). Images
 * are `--image=<file>`: `-i <file>` takes several values and would swallow the final `-`.
 */
export function buildExecArgs(o: ExecArgs): string[] {
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--sandbox',
    o.sandbox,
    ...(o.model ? ['-m', o.model] : []),
    ...(o.profile ? ['-p', o.profile] : []),
    ...(o.ephemeral ? ['--ephemeral'] : []),
    ...(o.addDirs ?? []).flatMap((d) => ['--add-dir', d]),
    // Config overrides rather than `--disable`/`--enable`: unknown keys are ignored, unknown flags are fatal.
    ...(o.shellSnapshot ? [] : ['-c', 'features.shell_snapshot=false']),
    ...(o.planTool ? ['-c', 'tools.update_plan.enabled=true'] : []),
    ...Object.entries(o.sandboxConfig ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ...overrideArgs(o.config),
    ...(o.outputSchema ? ['--output-schema', o.outputSchema] : []),
    ...(o.images ?? []).map((f) => `--image=${f}`),
    ...(o.extraArgs ?? []),
    ...(o.resume ? [o.resume.fork ? 'fork' : 'resume', o.resume.threadId] : []),
    '-',
  ];
}

/** `-c key=value` for each override. */
export function overrideArgs(config: Readonly<Record<string, string>> = {}): string[] {
  return Object.entries(config).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}
