import { spawnFailure } from './spawn-failure.js';
import type { ToolbridgeError } from '@toolbridge/core';

/** Set (with ELECTRON_RUN_AS_NODE) when the guard runs on Electron's binary; the guard removes both. */
const GUARD_AS_NODE = 'TOOLBRIDGE_GUARD_AS_NODE';

/**
 * Run as `node -e ORPHAN_GUARD <command> <args...>`: the guard is this process's stand-in inside
 * the tool's process group; when its stdin closes (we exited, even by SIGKILL, and the kernel
 * closed the pipe) it ends the whole group.
 */
const ORPHAN_GUARD = `
const { spawn } = require('child_process');
const [cmd, ...args] = process.argv.slice(1);
const env = { ...process.env };
if (env.${GUARD_AS_NODE}) { delete env.${GUARD_AS_NODE}; delete env.ELECTRON_RUN_AS_NODE; }
const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
child.on('error', (e) => { process.stderr.write('toolbridge-guard: ' + e.code + '\\n'); process.exit(127); });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
const endGroup = () => {
  try { process.kill(-process.pid, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
  setTimeout(() => { try { process.kill(-process.pid, 'SIGKILL'); } catch {} }, 2000).unref();
};
process.stdin.on('end', endGroup);
process.stdin.on('error', endGroup);
process.stdin.resume();
`;

/** The file, argv and environment that run `command` under a guard of its own. */
export function guarded(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { file: string; argv: string[]; env: NodeJS.ProcessEnv } {
  // In Electron, process.execPath is the app: the guard must be told to run as Node (and not pass that on).
  const guardEnv = process.versions.electron ? { ...env, ELECTRON_RUN_AS_NODE: '1', [GUARD_AS_NODE]: '1' } : env;
  return { file: process.execPath, argv: ['-e', ORPHAN_GUARD, command, ...args], env: guardEnv };
}

/** The guard's report that it could not start the command (exit 127 and its stderr line), as the run's error. */
export function guardStartFailure(
  code: number | null,
  stderrTail: string,
  command: string,
  toolId: string | undefined,
): ToolbridgeError | undefined {
  if (code !== 127 || !/toolbridge-guard: (ENOENT|EACCES)/.test(stderrTail)) return undefined;
  const errno = /EACCES/.test(stderrTail) ? 'EACCES' : 'ENOENT';
  return spawnFailure(Object.assign(new Error(stderrTail), { code: errno }), command, toolId);
}
