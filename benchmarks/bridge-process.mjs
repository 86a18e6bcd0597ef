// The bridge as a user starts it (`toolbridge serve --port 0`, the built CLI), for benchmarks.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../apps/bridge/dist/cli.js', import.meta.url));

/** Start the bridge with this environment; resolves with its URL once it prints it. Request logs go to /dev/null. */
export async function startBridge(env) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error('the bridge exited before printing its URL')));
  });
  const url = /^listening on (\S+)$/.exec(line)?.[1];
  if (!url) throw new Error(`unexpected first line: ${line}`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { url, pid: child.pid, stop: () => (child.kill('SIGTERM'), exited) };
}
