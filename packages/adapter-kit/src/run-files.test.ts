import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ToolRequest } from '@toolbridge/core';
import { runFiles } from './run-files.js';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
const request = {
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    },
  ],
} as unknown as ToolRequest;

describe('runFiles (the files of one spawned run)', () => {
  let scratch: string;
  beforeEach(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'tb-run-files-'));
  });
  afterEach(async () => rm(scratch, { recursive: true, force: true }));

  it("writes the images once per run, private, inside the call's scratch directory", async () => {
    const files = runFiles(request, { scratchDir: async () => scratch });
    const [image] = await files.images();
    expect(await files.images()).toEqual([image]);
    expect(path.dirname(image!)).toBe(await files.runDir());
    expect(image!.startsWith(`${scratch}${path.sep}`)).toBe(true);
    expect(path.basename(image!)).toBe('image-1.png');
    expect((await stat(image!)).mode & 0o777).toBe(0o600);
    expect((await readFile(image!)).toString('base64')).toBe(PNG);
  });

  it('gives a second run in the same scratch directory (core’s JSON repair turn) its own image files', async () => {
    const first = await runFiles(request, { scratchDir: async () => scratch }).images();
    const second = await runFiles(request, { scratchDir: async () => scratch }).images();
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);
    expect((await readFile(second[0]!)).toString('base64')).toBe(PNG);
  });

  it('makes nothing for a request without images', async () => {
    const files = runFiles({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] } as unknown as ToolRequest, {
      scratchDir: async () => scratch,
    });
    expect(await files.images()).toEqual([]);
  });
});
