export interface CopilotArgs {
  /** The permission level's flags (`PERMISSION_FLAGS`). */
  permissionFlags: readonly string[];
  model?: string;
  /** Continue this session (`--resume=<id>`). */
  resume?: string;
  /** More directories Copilot may use (`--add-dir`). */
  addDirs?: readonly string[];
  /** Image files for the prompt (`--attachment`). */
  attachments?: readonly string[];
  /** Where Copilot writes the run's token usage. */
  usageFile: string;
}

/**
 * `copilot` argv for one headless turn. The prompt is not in it: without `-p`, Copilot reads it
 * from stdin (closed after it). Values are joined with `=` so none can be taken for an option.
 * `--no-auto-update` runs the installed version (the one `detect()` reported), never a newer one
 * it would download meanwhile.
 */
export function buildArgs(a: CopilotArgs): string[] {
  return [
    '--output-format=json',
    '--no-auto-update',
    `--usage-output-file=${a.usageFile}`,
    ...a.permissionFlags,
    ...(a.model ? [`--model=${a.model}`] : []),
    ...(a.resume ? [`--resume=${a.resume}`] : []),
    ...(a.addDirs ?? []).map((d) => `--add-dir=${d}`),
    ...(a.attachments ?? []).map((f) => `--attachment=${f}`),
  ];
}
