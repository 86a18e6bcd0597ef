import { TimeoutError, ToolUnavailableError, type CallContext } from '@toolbridge/core';
import { failureOf, tail } from '@toolbridge/core/runtime';
import { runProcess } from './runner.js';

/** What a `--version` probe found. */
export type VersionProbe = { available: true; version: string } | { available: false; reason: string };

export interface VersionProbeOptions {
  command: string;
  /** Default `['--version']`. */
  args?: readonly string[];
  toolId: string;
  timeoutMs: number;
  cwd?: string;
  /** The version in the output (default: the first `1.2.3`-looking word). */
  parse?: (stdout: string) => string | undefined;
}

/** The first version-looking word of a text: `codex-cli 0.169.0` → `0.169.0`. */
export function parseVersionText(text: string): string | undefined {
  return /\d+\.\d+(?:\.\d+)?[0-9A-Za-z.+-]*/.exec(text)?.[0];
}

/**
 * Run `<command> --version` with a short bound. "Not installed", "did not answer", "exited with
 * code N" and "printed no version" are results with a reason, not errors; only the caller's own
 * deadline or cancel is thrown.
 */
export async function probeVersion(ctx: CallContext, o: VersionProbeOptions): Promise<VersionProbe> {
  const args = o.args ?? ['--version'];
  const shown = `\`${[o.command, ...args].join(' ')}\``;
  let run;
  try {
    run = await runProcess({
      command: o.command,
      args,
      env: ctx.env,
      ...(o.cwd ? { cwd: o.cwd } : {}),
      signal: ctx.signal,
      timeoutMs: o.timeoutMs,
      toolId: o.toolId,
      maxOutputBytes: 64 * 1024,
    });
  } catch (e) {
    if (ctx.signal.aborted) throw failureOf(e, ctx.signal, o.toolId);
    if (ToolUnavailableError.isInstance(e)) return { available: false, reason: e.message };
    if (TimeoutError.isInstance(e)) return { available: false, reason: `${shown} did not answer within ${o.timeoutMs} ms` };
    return { available: false, reason: `${shown} could not be run` };
  }
  const version = run.exitCode === 0 ? (o.parse ?? parseVersionText)(run.stdout) : undefined;
  if (version) return { available: true, version };
  const why = run.exitCode !== 0 ? `exited with ${run.signal ?? `code ${run.exitCode}`}` : 'printed no version';
  const stderr = tail(run.stderrTail, 300);
  return { available: false, reason: `${shown} ${why}${stderr ? `: ${stderr}` : ''}` };
}
