import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { RateLimitError, type ChatContext, type StreamEvent, type ToolRequest } from '@toolbridge/core';
import { makeTempDir, pathWith, waitForPidsGone, writeFakeBin } from '@toolbridge/test-suite/kit';
import { spawnTurn, type SpawnTurnSpec } from './spawn-turn.js';
import { parseJsonLine } from './text.js';

// A tool that prints its pid, then per mode: `ok` (text, done, exit), `linger` (text, done, never
// exits), `fail` (an error event, then waits forever), `slow` (a word every 100 ms, forever).
const TOOL = `
const mode = process.argv[2];
const out = (e) => process.stdout.write(JSON.stringify(e) + '\\n');
out({ type: 'pid', pid: process.pid, images: process.argv.slice(3) });
if (mode === 'slow') { setInterval(() => out({ type: 'text', text: 'word ' }), 100); return; }
if (mode === 'fail') { out({ type: 'error', status: 429 }); setInterval(() => {}, 1000); return; }
out({ type: 'text', text: 'hello' });
out({ type: 'done' });
if (mode === 'linger') setInterval(() => {}, 1000);
`;

let tmp: { dir: string; cleanup(): Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('toolbridge-spawn-turn-');
  await writeFakeBin(path.join(tmp.dir, 'bin'), 'tool', TOOL);
});
afterAll(() => tmp.cleanup());

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const request: ToolRequest = {
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', mediaType: 'image/png', data: PNG, bytes: Buffer.from(PNG, 'base64').length },
      ],
    },
  ],
  additionalDirs: [],
};

async function run(mode: string, more: Partial<SpawnTurnSpec> = {}, interrupt?: AbortController) {
  const scratch = path.join(tmp.dir, `scratch-${mode}`);
  await mkdir(scratch, { recursive: true, mode: 0o700 });
  const ctx: ChatContext = {
    config: {},
    env: { PATH: pathWith(path.join(tmp.dir, 'bin')) },
    signal: new AbortController().signal,
    cwd: tmp.dir,
    scratchDir: async () => scratch,
    ...(interrupt ? { interrupt: interrupt.signal } : {}),
  };
  let text = '';
  const pids: number[] = [];
  const images: string[] = [];
  const events: StreamEvent[] = [];
  const base: SpawnTurnSpec = {
    name: 'Tool',
    toolId: 'tool',
    launch: async (files) => ({ command: 'tool', args: [mode, ...(await files.images())], stdin: '' }),
    line(line) {
      const e = parseJsonLine(line);
      if (e?.type !== 'text') return [];
      text += String(e.text);
      if (text.length > 10) interrupt?.abort();
      return [{ type: 'delta', text: String(e.text) }];
    },
    finish: (_exit, end) => ({ message: { role: 'assistant', content: text }, usage: {}, metadata: { interrupted: end.interrupted } }),
  };
  const own = { ...base, ...more };
  const spec: SpawnTurnSpec = {
    ...own,
    // Every mode's first line: the tool's pid (to check it is gone) and the image paths it was given.
    line(line, proc) {
      const e = parseJsonLine(line);
      if (e?.type === 'pid') {
        pids.push(Number(e.pid));
        images.push(...(e.images as string[]));
      }
      return own.line(line, proc);
    },
  };
  const error = await (async () => {
    for await (const e of spawnTurn(request, ctx, spec)) events.push(e);
  })().catch((e: unknown) => e);
  return { events, error, pids, images };
}

describe('spawnTurn (the spawn-per-chat skeleton)', () => {
  it('streams the events, ends with the result marked transport "spawn", and gives the tool its image files', async () => {
    const { events, error, pids, images } = await run('ok');
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'delta', text: 'hello' },
      {
        type: 'result',
        result: { message: { role: 'assistant', content: 'hello' }, usage: {}, metadata: { interrupted: false, transport: 'spawn' } },
      },
    ]);
    expect(images).toHaveLength(1);
    expect(path.relative(path.join(tmp.dir, 'scratch-ok'), images[0]!)).toMatch(/^run-[^/]+\/image-1\.png$/);
    expect(statSync(images[0]!).mode & 0o777).toBe(0o600);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('ends a run at a failure the tool reported (it would wait forever) with the typed error, and leaves no process', async () => {
    let failure: RateLimitError | undefined;
    const { error, pids } = await run('fail', {
      line(line) {
        if (parseJsonLine(line)?.type === 'error') failure = new RateLimitError('Tool was rate limited', { toolId: 'tool' });
        return [];
      },
      failed: () => failure,
    });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('keeps the answer of a tool that lingers after it, and ends the tool after the grace', async () => {
    let done = false;
    const { events, error, pids } = await run('linger', {
      line(line) {
        const e = parseJsonLine(line);
        if (e?.type === 'done') done = true;
        return e?.type === 'text' ? [{ type: 'delta', text: String(e.text) }] : [];
      },
      answered: () => done,
      afterAnswerMs: 50,
      finish: () => ({ message: { role: 'assistant', content: 'hello' }, usage: {}, metadata: {} }),
    });
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'result', result: { message: { content: 'hello' }, metadata: { transport: 'spawn' } } });
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('at the caller’s interrupt ends the tool and finishes with what was said', async () => {
    const { events, error, pids } = await run('slow', { interrupt: 'kill' }, new AbortController());
    expect(error).toBeUndefined();
    const result = events.at(-1);
    expect(result).toMatchObject({ type: 'result', result: { metadata: { interrupted: true, transport: 'spawn' } } });
    expect(result?.type === 'result' && result.result.message.content).toMatch(/^(word )+$/);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });
});
