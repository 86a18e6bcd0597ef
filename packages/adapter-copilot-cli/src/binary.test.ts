import { afterEach, describe, expect, it } from '@jest/globals';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, realCliBinDir } from '@toolbridge/test-suite/kit';
import { platformPackages, resolveCopilotBinary } from './binary.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function exe(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '#!/bin/sh\n');
  await chmod(file, 0o755);
}

describe('the copilot binary', () => {
  it('runs the native executable instead of npm’s loader', async () => {
    const tmp = await makeTempDir();
    cleanups.push(tmp.cleanup);
    const nm = path.join(tmp.dir, 'node_modules');
    await exe(path.join(nm, '@github', 'copilot', 'npm-loader.js'));
    const native = path.join(nm, '@github', platformPackages()[0]!, 'copilot');
    await exe(native);
    await mkdir(path.join(nm, '.bin'));
    await symlink('../@github/copilot/npm-loader.js', path.join(nm, '.bin', 'copilot'));
    expect(await resolveCopilotBinary('copilot', { PATH: `/nonexistent:${path.join(nm, '.bin')}` })).toBe(native);
  });

  it('finds the pinned install’s native executable', async () => {
    const dir = realCliBinDir('copilot');
    expect(await resolveCopilotBinary('copilot', { PATH: dir })).toMatch(/@github\/copilot-linux(musl)?-x64\/copilot$/);
  });

  it('keeps any other copilot, and a missing one as it is (the spawn then says it is not installed)', async () => {
    const tmp = await makeTempDir();
    cleanups.push(tmp.cleanup);
    await exe(path.join(tmp.dir, 'copilot'));
    expect(await resolveCopilotBinary('copilot', { PATH: tmp.dir })).toBe(path.join(tmp.dir, 'copilot'));
    expect(await resolveCopilotBinary('copilot', { PATH: '/nonexistent' })).toBe('copilot');
  });
});
