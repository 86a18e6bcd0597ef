import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * What a warm process's settings rest on, as one string: the given values (config, flags) and,
 * for each file, its modification time and size (the CLI's binary as found on PATH, its login and
 * config files). A different fingerprint means a restart. A few `stat` calls: cheap per chat.
 */
export function warmFingerprint(values: unknown, files: readonly (string | undefined)[]): string {
  const stamps = files.map((f) => {
    if (!f) return '-';
    try {
      const s = statSync(f);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return 'none';
    }
  });
  return JSON.stringify([values, stamps]);
}

/**
 * The environment a warm process runs with (HOME, XDG dirs, keys, config variables), as a short
 * hash for its pool key: processes started with different environments are different processes,
 * and the key never holds the environment's text (keys are logged and compared, secrets are not).
 */
export function envFingerprint(env: NodeJS.ProcessEnv): string {
  return createHash('sha256')
    .update(JSON.stringify(Object.entries(env).sort()))
    .digest('hex')
    .slice(0, 16);
}

/** The file a command name runs, found on the given PATH (undefined when it is not there). */
export function whichOnPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  if (command.includes('/')) return command;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * How long warm processes may idle before they are shut down (`warmIdleMs` config, default 5
 * minutes; 0 = warm mode off). The value was checked by core's config schema (an integer, 0 to 24 h).
 */
export function warmIdleMs(config: Readonly<Record<string, unknown>>): number {
  return (config.warmIdleMs as number | undefined) ?? DEFAULT_WARM_IDLE_MS;
}

/** Five minutes: long enough to carry a conversation's pauses, short enough not to hold 100–300 MB per tool for nothing. */
export const DEFAULT_WARM_IDLE_MS = 5 * 60_000;
