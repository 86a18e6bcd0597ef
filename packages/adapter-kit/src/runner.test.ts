import { describe, expect, it } from '@jest/globals';
import { makeTempDir, pathWith, waitForPidsGone, writeFakeBin } from '@toolbridge/test-suite/kit';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError, ProviderExecutionError, TimeoutError, ToolUnavailableError } from '@toolbridge/core';
import { liveProcessGroupCount, runProcess, spawnProcess } from './runner.js';

const node = process.execPath;

/** A script that starts two grandchildren (one ignores SIGTERM) and prints every pid, then hangs. */
const treeScript = `
const { spawn } = require('child_process');
const stubborn = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
const plain = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log(JSON.stringify({ pids: [process.pid, stubborn.pid, plain.pid] }));
setInterval(() => {}, 1000);
`;

describe('runProcess', () => {
  it('delivers the prompt on stdin, not argv, and closes stdin', async () => {
    const r = await runProcess({
      command: node,
      args: ['-e', "let s='';process.stdin.on('data',c=>s+=c).on('end',()=>console.log(JSON.stringify({s, argv: process.argv.slice(1)})))"],
      stdin: 'secret prompt ✓\nsecond line',
    });
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.s).toBe('secret prompt ✓\nsecond line');
    expect(JSON.stringify(out.argv)).not.toContain('secret');
  });

  it('streams stdout line by line as it arrives', async () => {
    // The child prints its second line only once the test has seen the first: a reader that
    // waited for more output or for the exit would hang here (no timing to race under load).
    const dir = await makeTempDir('toolbridge-runner-stream-');
    const seenFile = path.join(dir.dir, 'seen');
    try {
      const proc = spawnProcess({
        command: node,
        args: [
          '-e',
          "const fs=require('fs');console.log('line0');const t=setInterval(()=>{if(fs.existsSync(process.argv[1])){clearInterval(t);console.log('line1')}},10)",
          seenFile,
        ],
        timeoutMs: 30_000,
      });
      const seen: string[] = [];
      for await (const line of proc) {
        seen.push(line);
        if (line === 'line0') await writeFile(seenFile, '');
      }
      expect(seen).toEqual(['line0', 'line1']);
      expect((await proc.result).exitCode).toBe(0);
    } finally {
      await dir.cleanup();
    }
  });

  it('reports exit code, stderr tail and duration without throwing on failure', async () => {
    const r = await runProcess({ command: node, args: ['-e', "process.stderr.write('boom\\n'); process.exit(3)"] });
    expect(r.exitCode).toBe(3);
    expect(r.stderrTail).toBe('boom\n');
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('maps a missing binary to ToolUnavailableError (not installed)', async () => {
    const error = await runProcess({ command: 'toolbridge-no-such-binary', toolId: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect(error.message).toMatch(/not installed/);
    expect(error.details).toEqual({ notInstalled: true });
    expect(error.toolId).toBe('x');
  });

  it('kills the whole process tree on timeout, including a child that ignores SIGTERM', async () => {
    const proc = spawnProcess({ command: node, args: ['-e', treeScript], timeoutMs: 3000, killGraceMs: 300 });
    let pids: number[] = [];
    const error = await (async () => {
      for await (const line of proc) pids = JSON.parse(line).pids;
    })().catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(pids).toHaveLength(3);
    expect(await waitForPidsGone(pids, 3000)).toEqual([]);
    await expect(proc.result).rejects.toBeInstanceOf(TimeoutError);
  });

  it('kills the tree when the caller aborts, with the signal reason', async () => {
    const controller = new AbortController();
    const proc = spawnProcess({ command: node, args: ['-e', treeScript], signal: controller.signal, killGraceMs: 300 });
    let pids: number[] = [];
    const error = await (async () => {
      for await (const line of proc) {
        pids = JSON.parse(line).pids;
        controller.abort();
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(await waitForPidsGone(pids, 3000)).toEqual([]);

    const c2 = new AbortController();
    const reason = new TimeoutError('deadline');
    c2.abort(reason);
    await expect(runProcess({ command: node, args: ['-e', 'setInterval(()=>{},1000)'], signal: c2.signal })).rejects.toBe(reason);
  });

  it('kills the tree when the consumer stops iterating early', async () => {
    const proc = spawnProcess({ command: node, args: ['-e', treeScript], killGraceMs: 300 });
    let pids: number[] = [];
    for await (const line of proc) {
      pids = JSON.parse(line).pids;
      break;
    }
    expect(await waitForPidsGone(pids, 3000)).toEqual([]);
  });

  it('ends descendants left running after the tool itself exits', async () => {
    const r = await runProcess({
      command: node,
      args: [
        '-e',
        "const c=require('child_process').spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'ignore'});c.unref();console.log(c.pid)",
      ],
      killGraceMs: 300,
    });
    const pid = Number(r.stdout.trim());
    expect(await waitForPidsGone([pid], 3000)).toEqual([]);
  });

  it('kills helpers a tool moved out of its process group before the run settles', async () => {
    // Like Codex's shell snapshot: a helper in a new session that outlives its parent.
    const r = await runProcess({
      command: node,
      args: [
        '-e',
        "const c=require('child_process').spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{detached:true,stdio:'ignore'});c.unref();console.log(c.pid)",
      ],
    });
    const pid = Number(r.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // Already gone (or a zombie awaiting init) when the result resolves: no waiting needed.
    expect(await waitForPidsGone([pid], 0)).toEqual([]);
  });

  it('spawns nothing when the signal is already aborted', async () => {
    const tmp = await makeTempDir();
    try {
      const marker = path.join(tmp.dir, 'ran');
      const c = new AbortController();
      const reason = new TimeoutError('too late');
      c.abort(reason);
      const proc = spawnProcess({
        command: node,
        args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`],
        stdin: 'prompt',
        signal: c.signal,
      });
      expect(proc.pid).toBeUndefined();
      await expect(proc.result).rejects.toBe(reason);
      await new Promise((r) => setTimeout(r, 300));
      expect(existsSync(marker)).toBe(false);
    } finally {
      await tmp.cleanup();
    }
  });

  it('yields no piece of a line that broke the line cap', async () => {
    const proc = spawnProcess({
      command: node,
      args: ['-e', "process.stdout.write('ok\\n' + 'a'.repeat(200000) + '\\nafter\\n')"],
      maxLineBytes: 100_000,
      killGraceMs: 300,
    });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const line of proc) seen.push(line);
    })().catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toMatch(/longer than 100000 bytes/);
    expect(seen.every((l) => l.length < 100_000 && !l.startsWith('a'))).toBe(true);
  });

  it('caps output and kills a tool that floods stdout', async () => {
    const error = await runProcess({
      command: node,
      args: ['-e', "const s='x'.repeat(1<<16)+'\\n';(function w(){while(process.stdout.write(s));process.stdout.once('drain',w)})()"],
      maxOutputBytes: 1 << 20,
      killGraceMs: 300,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toMatch(/more than 1048576 bytes/);
  });

  it('runs fake executables from PATH without a shell', async () => {
    const tmp = await makeTempDir();
    try {
      const bin = path.join(tmp.dir, 'bin');
      const marker = path.join(tmp.dir, 'marker');
      await writeFakeBin(bin, 'faketool', `require('fs').writeFileSync(${JSON.stringify(marker)}, process.argv.slice(2).join('|'))`);
      const r = await runProcess({
        command: 'faketool',
        args: ['a b', '$(touch pwned)', ';echo'],
        env: { ...process.env, PATH: pathWith(bin) },
      });
      expect(r.exitCode).toBe(0);
      expect(await readFile(marker, 'utf8')).toBe('a b|$(touch pwned)|;echo');
    } finally {
      await tmp.cleanup();
    }
  });

  it('forgets process groups once they are gone', async () => {
    await runProcess({ command: node, args: ['-e', '0'] });
    await new Promise((r) => setTimeout(r, 50));
    expect(liveProcessGroupCount()).toBe(0);
  });
});
