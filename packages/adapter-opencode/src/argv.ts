/** What one `opencode run` is told besides the prompt (which goes on stdin). */
export interface RunArgs {
  model?: string;
  /** Continue (or fork) this OpenCode session. */
  resume?: { nativeSessionId: string; fork: boolean };
  /** The working directory: `--dir`, so a resumed session is found where it lives (else `run --session` hangs). */
  dir: string;
  /** `--title`: one model call per chat instead of two; undefined leaves titles to OpenCode. */
  title?: string;
  /** Files attached with `-f` (images). */
  files: readonly string[];
  extraArgs: readonly string[];
}

/**
 * argv of `opencode run --format json`. `--thinking` prints reasoning parts (the request to the
 * model is the same, measured); `-f` takes a list, so it comes last and `--` ends it (the prompt
 * is still read from stdin).
 */
export function runArgs(a: RunArgs): string[] {
  const args = ['run', '--format', 'json', '--thinking', '--dir', a.dir];
  if (a.model) args.push('-m', a.model);
  if (a.resume) args.push('--session', a.resume.nativeSessionId, ...(a.resume.fork ? ['--fork'] : []));
  if (a.title !== undefined) args.push('--title', a.title);
  args.push(...a.extraArgs);
  if (a.files.length > 0) args.push('-f', ...a.files, '--');
  return args;
}
