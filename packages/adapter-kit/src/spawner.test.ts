import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AbortedError, TimeoutError, ToolUnavailableError } from '@toolbridge/core';
import { pidAlive, processesWithEnv, waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { runProcess, spawnProcess, type RunningProcess } from './runner.js';
import { readySpawner, spawnerPid, spawnerTuning, stopSpawner } from './spawner.js';

const node = process.execPath;

/** Lines and result of a run already started. */
async function collect(run: RunningProcess) {
  const lines: string[] = [];
  for await (const line of run) lines.push(line);
  return { lines, ...(await run.result) };
}

/** Start the helper and wait until spawns go through it. */
async function helperReady(): Promise<number> {
  await waitFor(() => readySpawner() !== undefined, 5000, 'the spawner to be ready');
  return spawnerPid()!;
}

afterEach(() => {
  stopSpawner();
  spawnerTuning.idleMs = 30_000;
});

describe.each(process.platform === 'linux' ? ['linux'] : [])('the spawner (%s)', () => {
  it('starts tools as its own children, with the same stdin, output, stderr and exit code as a direct spawn', async () => {
    const helper = await helperReady();
    const script =
      "let s = ''; process.stdin.on('data', (c) => (s += c)).on('end', () => { console.log(JSON.stringify({ ppid: process.ppid, s, cwd: process.cwd(), v: process.env.TB_V })); console.log('second line'); process.stderr.write('warned\\n'); process.exit(7); });";
    const r = await collect(
      spawnProcess({ command: node, args: ['-e', script], stdin: 'hello é', cwd: '/tmp', env: { ...process.env, TB_V: 'x' } }),
    );
    const first = JSON.parse(r.lines[0]!) as { ppid: number; s: string; cwd: string; v: string };
    expect(first).toEqual({ ppid: helper, s: 'hello é', cwd: '/tmp', v: 'x' });
    expect(r.lines[1]).toBe('second line');
    expect(r.exitCode).toBe(7);
    expect(r.stderrTail).toContain('warned');
  });

  it('tools that exit at once, many at a time, lose none of their output', async () => {
    await helperReady();
    // Such tools used to end before their pipes were handed over: their output was lost and their runs never ended.
    const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => runProcess({ command: 'echo', args: [`out ${i}`] })));
    expect(runs.map((r) => [r.stdout, r.exitCode])).toEqual(Array.from({ length: 40 }, (_, i) => [`out ${i}`, 0]));
  });

  it('a missing command is ToolUnavailableError, as when spawned directly', async () => {
    await helperReady();
    const error = await runProcess({ command: 'toolbridge-no-such-tool', args: [], toolId: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect((error as ToolUnavailableError).details).toMatchObject({ notInstalled: true });
  });

  it('a deadline ends the tool and its process group', async () => {
    await helperReady();
    const tool =
      "const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(JSON.stringify([process.pid, c.pid])); setInterval(() => {}, 1000);";
    const run = spawnProcess({ command: node, args: ['-e', tool], timeoutMs: 2000 });
    const first = await run[Symbol.asyncIterator]().next();
    const pids = JSON.parse(first.value as string) as number[];
    await expect(run.result).rejects.toBeInstanceOf(TimeoutError);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('a cancel while the helper is still starting the tool ends the tool as soon as it exists', async () => {
    await helperReady();
    const marker = `TB_SPAWNER_A_${process.pid}_${Date.now()}`;
    const controller = new AbortController();
    const run = spawnProcess({
      command: node,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      signal: controller.signal,
      env: { ...process.env, [marker]: '1' },
    });
    expect(run.pid).toBeUndefined(); // the helper has not answered yet
    controller.abort();
    await expect(run.result).rejects.toBeInstanceOf(AbortedError);
    expect(await waitForPidsGone(processesWithEnv(marker), 5000)).toEqual([]);
  });

  it('a helper killed mid-run leaves the run to finish on its output, and the next spawn still works', async () => {
    const helper = await helperReady();
    const run = spawnProcess({ command: node, args: ['-e', "setTimeout(() => console.log('done'), 400)"] });
    await waitFor(() => run.pid !== undefined, 5000, 'the tool to start');
    process.kill(helper, 'SIGKILL');
    const r = await collect(run);
    expect(r.lines).toEqual(['done']);
    // The exit status went with the helper; the run still ends rather than hang.
    expect(r.exitCode).toBeNull();
    const next = await runProcess({ command: node, args: ['-e', "console.log('again')"] });
    expect(next.stdout).toBe('again');
  });

  it('exits when idle', async () => {
    spawnerTuning.idleMs = 200;
    const helper = await helperReady();
    await runProcess({ command: node, args: ['-e', ''] });
    expect(await waitForPidsGone([helper], 5000)).toEqual([]);
    // A zombie counts as gone above; this process learns of the exit a moment later.
    await waitFor(() => spawnerPid() === undefined, 5000, 'the spawner to be forgotten');
  });

  it('ends the tools it started when its host dies, even by SIGKILL', async () => {
    const kit = fileURLToPath(new URL('../dist/', import.meta.url));
    const script = `
      import { spawnProcess } from ${JSON.stringify(kit + 'index.js')};
      import { readySpawner, spawnerPid } from ${JSON.stringify(kit + 'spawner.js')};
      while (!readySpawner()) await new Promise((r) => setTimeout(r, 20));
      const run = spawnProcess({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] });
      while (run.pid === undefined) await new Promise((r) => setTimeout(r, 20));
      console.log(JSON.stringify([run.pid, spawnerPid()]));
      setInterval(() => {}, 1000);
    `;
    const host = spawn(node, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pids = await new Promise<number[]>((resolve) => {
      let out = '';
      host.stdout!.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as number[]);
      });
    });
    expect(pids.every(pidAlive)).toBe(true);
    host.kill('SIGKILL');
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });
});
