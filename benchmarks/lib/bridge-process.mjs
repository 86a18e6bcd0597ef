// `toolbridge serve` as its own process, for benchmarks that measure the bridge as a user runs it.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../apps/bridge/dist/cli.js', import.meta.url));

/**
 * Start the built bridge on a free port (request logs on, the default, to /dev/null), with more
 * `serve` flags (`--warm-up <tool>`); `stop()` sends SIGTERM and waits for the exit.
 */
export async function startBridge(env, args = []) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error('the bridge exited before printing its URL')));
  });
  const url = /^listening on (\S+)$/.exec(line)?.[1];
  if (!url) throw new Error(`unexpected first line: ${line}`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { url, pid: child.pid, stop: () => (child.kill('SIGTERM'), exited) };
}
