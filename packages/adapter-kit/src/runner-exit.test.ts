import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitForPidsGone } from '@toolbridge/test-suite/kit';

/**
 * What happens to tools when the host process itself goes away. These run a
 * separate Node host over the built kit (`pnpm test` builds before jest).
 */
const KIT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/**
 * Start a host that runs a tool (which starts a helper in a session of its own,
 * out of reach of a process-group kill), keeps it running, and prints both pids;
 * then runs `then`.
 */
function host(then: string) {
  const script = `
    import { spawnProcess } from ${JSON.stringify(KIT)};
    const tool = "const { spawn } = require('child_process');" +
      "const h = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' }); h.unref();" +
      "console.log(JSON.stringify([process.pid, h.pid])); setInterval(() => {}, 1000);";
    const lines = spawnProcess({ command: process.execPath, args: ['-e', tool] })[Symbol.asyncIterator]();
    console.log((await lines.next()).value);
    setInterval(() => {}, 1000);
    ${then}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pids = new Promise<number[]>((resolve) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as number[]);
    });
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, sig) => resolve(sig ?? code)));
  return { child, pids, exited };
}

describe('tools do not outlive their host', () => {
  it('the kit is built', () => {
    expect(existsSync(KIT)).toBe(true); // run `pnpm build` (pnpm test does) before jest
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('a host killed by %s ends its tools and still dies by that signal', async (sig) => {
    const h = host('');
    const [tool, helper] = await h.pids;
    h.child.kill(sig);
    expect(await h.exited).toBe(sig);
    expect(await waitForPidsGone([tool!, helper!], 3000)).toEqual([]);
  });

  it('process.exit() ends running tools, including helpers outside their process group', async () => {
    const h = host('setTimeout(() => process.exit(3), 100);');
    const [tool, helper] = await h.pids;
    expect(await h.exited).toBe(3);
    expect(await waitForPidsGone([tool!, helper!], 3000)).toEqual([]);
  });

  it('leaves signals alone when the host handles them itself', async () => {
    const h = host("process.on('SIGTERM', () => { console.log('handled'); setTimeout(() => process.exit(0), 50); });");
    const [tool] = await h.pids;
    h.child.kill('SIGTERM');
    expect(await h.exited).toBe(0);
    // The app's own handler ran (it exits 0); the exit hook still ended the tool.
    expect(await waitForPidsGone([tool!], 3000)).toEqual([]);
  });
});
