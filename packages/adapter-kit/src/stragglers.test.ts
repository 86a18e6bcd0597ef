import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { pidsSince } from './proc.js';
import { runProcess } from './runner.js';
import { findMarkedSync, RUN_MARKER_ENV } from './stragglers.js';

const linux = process.platform === 'linux' ? describe : describe.skip;
const started: number[] = [];
afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

linux('stragglers', () => {
  it('a helper the tool started in a session of its own is ended after the run', async () => {
    const tool =
      "const h = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' }); h.unref(); console.log(h.pid);";
    const r = await runProcess({ command: process.execPath, args: ['-e', tool] });
    const helper = Number(r.stdout);
    started.push(helper);
    expect(await waitForPidsGone([helper], 100)).toEqual([]);
  });

  it('looks only at pids from the given one on, unless the pid counter wrapped below it', async () => {
    const marker = `test-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
      env: { ...process.env, [RUN_MARKER_ENV]: marker },
    });
    started.push(child.pid!);
    const pid = child.pid!;
    // Until it has exec'd, the child still shows this process's environment.
    await waitFor(() => findMarkedSync([marker]).length > 0, 5000, 'the marked child');
    expect(findMarkedSync([marker])).toEqual([pid]);
    expect(findMarkedSync([marker], pid)).toEqual([pid]);
    spawnSync('true'); // a later pid, so the counter is known to have moved on from the child's
    expect(findMarkedSync([marker], pid + 1)).toEqual([]);
    // A floor above the last pid handed out means the counter wrapped: everything is looked at.
    const last = Number(readFileSync('/proc/loadavg', 'latin1').trim().split(' ').pop());
    expect(findMarkedSync([marker], last + 1_000_000)).toEqual([pid]);
    child.kill('SIGKILL');
  });

  it('takes the pids handed out since a run began: none above the last one (older than the last wrap)', () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    started.push(child.pid!);
    spawnSync('true'); // moves the counter on
    const since = pidsSince(child.pid!);
    const last = Number(readFileSync('/proc/loadavg', 'latin1').trim().split(' ').pop());
    child.kill('SIGKILL');
    expect(since).toContain(child.pid);
    expect(since.filter((p) => p < child.pid! || p > last)).toEqual([]);
  });
});
