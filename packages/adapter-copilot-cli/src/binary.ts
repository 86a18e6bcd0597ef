import { access, constants, realpath } from 'node:fs/promises';
import path from 'node:path';

/** The platform package names npm's `@github/copilot` loader tries, in its order. */
export function platformPackages(platform = process.platform, arch = process.arch, musl = isMusl()): string[] {
  if (platform === 'linux') return musl ? [`copilot-linuxmusl-${arch}`, `copilot-linux-${arch}`] : [`copilot-linux-${arch}`];
  return [`copilot-${platform}-${arch}`];
}

function isMusl(): boolean {
  if (process.platform !== 'linux') return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return !header?.glibcVersionRuntime;
}

const executable = (file: string) =>
  access(file, constants.X_OK).then(
    () => true,
    () => false,
  );

/** `command` as the shell would find it on `PATH`; undefined when it is not there. */
export async function onPath(command: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (command.includes('/') || command.includes(path.sep)) return (await executable(command)) ? command : undefined;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, command);
    if (await executable(file)) return file;
  }
  return undefined;
}

/**
 * The program to run for `copilot`. npm installs a small Node loader (`npm-loader.js`) that runs
 * the native executable of a platform package with `spawnSync`; a signal to the loader does not
 * reach that child (it is left running, re-parented to init), and the loader costs ~90 ms per
 * run. So when `copilot` is that loader, the native executable beside it is run directly; any
 * other `copilot` (a standalone install, a test fake) is run as it is.
 */
export async function resolveCopilotBinary(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  const found = await onPath(command, env);
  if (!found) return command;
  const real = await realpath(found).catch(() => found);
  if (path.basename(real) !== 'npm-loader.js') return found;
  const pkg = path.dirname(real);
  const exe = process.platform === 'win32' ? 'copilot.exe' : 'copilot';
  for (const name of platformPackages()) {
    // Hoisted beside `@github/copilot`, or nested in its own node_modules.
    for (const dir of [path.join(path.dirname(pkg), name), path.join(pkg, 'node_modules', '@github', name)]) {
      const file = path.join(dir, exe);
      if (await executable(file)) return file;
    }
  }
  return found;
}
