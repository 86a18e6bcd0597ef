import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ToolUnavailableError } from '@toolbridge/core';
import { pidAlive, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { spawnProcess } from './runner.js';

/** A tool speaking a line protocol on stdio: each input line comes back as `{"echo": line}`. */
const ECHO = `process.stdin.setEncoding('utf8'); let buf = '';
process.stdin.on('data', (c) => { buf += c; let i; while ((i = buf.indexOf('\\n')) >= 0) { console.log(JSON.stringify({ echo: buf.slice(0, i) })); buf = buf.slice(i + 1); } });
process.stdin.on('end', () => process.exit(0));`;

describe('interactive runs (a warm tool on stdio)', () => {
  it('keeps stdin open for write(), reads answers as lines, and ends when the input is closed', async () => {
    const proc = spawnProcess({ command: process.execPath, args: ['-e', ECHO], interactive: true });
    const lines = proc[Symbol.asyncIterator]();
    await proc.write('one\n');
    expect((await lines.next()).value).toBe('{"echo":"one"}');
    await proc.write('two\n');
    expect((await lines.next()).value).toBe('{"echo":"two"}');
    expect(proc.exited).toBe(false);
    proc.endInput();
    expect((await lines.next()).done).toBe(true);
    expect((await proc.result).exitCode).toBe(0);
    expect(proc.exited).toBe(true);
    await expect(proc.write('three\n')).rejects.toThrow(/no longer running/);
  });
});

describe('orphan guard (a server that does not exit with its parent)', () => {
  it('passes output and exit code through, and says "not installed" for a missing command', async () => {
    const ok = spawnProcess({ command: process.execPath, args: ['-e', 'console.log("served"); process.exit(3)'], orphanGuard: true });
    const out: string[] = [];
    for await (const line of ok) out.push(line);
    expect(out).toEqual(['served']);
    expect((await ok.result).exitCode).toBe(3);

    const missing = spawnProcess({ command: 'toolbridge-no-such-server', orphanGuard: true, toolId: 'x' });
    const error = await missing.result.catch((e) => e);
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect(error.message).toMatch(/not installed/);
  });

  it('ends the guarded server when the host dies by SIGKILL (nothing can clean up then)', async () => {
    const kit = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(kit)).toBe(true); // `pnpm build` (pnpm test does) runs before jest
    const host = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { spawnProcess } from ${JSON.stringify(kit)};
         const server = spawnProcess({ command: process.execPath, args: ['-e', 'console.log(process.pid); setInterval(() => {}, 1000)'], orphanGuard: true });
         const lines = server[Symbol.asyncIterator]();
         console.log(JSON.stringify([server.pid, Number((await lines.next()).value)]));
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pids = await new Promise<number[]>((resolve) => {
      let text = '';
      host.stdout!.on('data', (c) => {
        text += c;
        if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]!) as number[]);
      });
    });
    expect(pids.every(pidAlive)).toBe(true);
    host.kill('SIGKILL');
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('one helper guards every server: the spawner watches them (no guard process each), and ends them all when the host dies by SIGKILL', async () => {
    const kit = fileURLToPath(new URL('../dist/', import.meta.url));
    // Each server also starts a child of its own (in its group), and ignores SIGTERM: only SIGKILL ends it.
    const server = `process.on('SIGTERM', () => {}); const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(process.pid + ' ' + c.pid); setInterval(() => {}, 1000)`;
    const script = `
      import { spawnProcess } from ${JSON.stringify(kit + 'index.js')};
      import { readySpawner, spawnerPid } from ${JSON.stringify(kit + 'spawner.js')};
      while (!readySpawner()) await new Promise((r) => setTimeout(r, 20));
      const servers = [1, 2].map(() => spawnProcess({ command: process.execPath, args: ['-e', ${JSON.stringify(server)}], orphanGuard: true }));
      const pids = [];
      for (const s of servers) pids.push(s.pid, ...(await s[Symbol.asyncIterator]().next()).value.split(' ').map(Number));
      console.log(JSON.stringify({ pids, spawner: spawnerPid() }));
      setInterval(() => {}, 1000);
    `;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const { pids, spawner } = await new Promise<{ pids: number[]; spawner: number }>((resolve) => {
      let text = '';
      host.stdout!.on('data', (c) => {
        text += c;
        if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]!) as { pids: number[]; spawner: number });
      });
    });
    // The server itself is the started process (no guard in between): [server, its child] twice.
    expect(pids).toHaveLength(6);
    expect(pids[0]).toBe(pids[1]);
    expect(pids[3]).toBe(pids[4]);
    expect([...pids, spawner].every(pidAlive)).toBe(true);
    host.kill('SIGKILL');
    expect(await waitForPidsGone([...pids, spawner], 8000)).toEqual([]);
  }, 30_000);
});
