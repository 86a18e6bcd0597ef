import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One run of a fake CLI replaying a real one: what it prints, how it ends. */
export interface CapturedReplay {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  /** Milliseconds between stdout lines. */
  delayMs?: number;
  /** Print, then never exit. */
  hang?: boolean;
}

/**
 * A package's recordings of its real CLI, byte for byte, in the `captures/` directory beside the
 * module whose `import.meta.url` is given: `capture(name)` is a file's text, `recorded(name)` the
 * run `<name>.out` on stdout and `<name>.err` (when recorded) on stderr, with its exit code.
 */
export function capturesAt<R extends CapturedReplay = CapturedReplay>(moduleUrl: string) {
  const dir = path.join(path.dirname(fileURLToPath(moduleUrl)), 'captures');
  const capture = (name: string): string => readFileSync(path.join(dir, name), 'utf8');
  const recorded = (name: string, exitCode = 0, extra: Partial<R> = {}): R => {
    const stderr = existsSync(path.join(dir, `${name}.err`)) ? capture(`${name}.err`) : '';
    return { stdout: capture(`${name}.out`), stderr, exitCode, ...extra } as R;
  };
  return { dir, capture, recorded };
}
