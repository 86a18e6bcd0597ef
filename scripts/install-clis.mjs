#!/usr/bin/env node
// Installs the pinned real CLIs the integration tests drive into a cache
// directory outside the repo (TOOLBRIDGE_CLI_CACHE, default ~/.cache/toolbridge/clis).
// Idempotent: an installed pin is left alone. The pins are in packages/test-suite/real-clis.json.
// Also the pinned Node 22 that runs @toolbridge/ai-sdk's tests, when this Node is older (node22.mjs).

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { NODE22, cliCache, needsPinnedNode22 } from './node22.mjs';

const pins = JSON.parse(readFileSync(new URL('../packages/test-suite/real-clis.json', import.meta.url), 'utf8'));
const CLIS = [...Object.values(pins.clis), ...(needsPinnedNode22() ? [NODE22] : [])];

const cache = cliCache();
mkdirSync(cache, { recursive: true });

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pending = CLIS.filter(({ pkg, version, bin }) => {
  const dir = path.join(cache, `${pkg.replace('/', '__')}@${version}`);
  return !existsSync(path.join(dir, 'node_modules', '.bin', bin)) || !existsSync(path.join(dir, '.complete'));
});
if (pending.length === 0) {
  console.log(`real CLIs: all pinned versions present in ${cache}`);
  process.exit(0);
}

const results = await Promise.all(
  pending.map(
    ({ pkg, version }) =>
      new Promise((resolve) => {
        const dir = path.join(cache, `${pkg.replace('/', '__')}@${version}`);
        const staging = `${dir}.tmp-${process.pid}`;
        rmSync(staging, { recursive: true, force: true });
        mkdirSync(staging, { recursive: true });
        writeFileSync(path.join(staging, 'package.json'), '{"private":true}\n');
        const started = Date.now();
        {
          const child = spawn(npm, ['install', '--prefix', staging, '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`], {
            stdio: ['ignore', 'inherit', 'inherit'],
          });
          child.on('close', (code) => {
            if (code !== 0) {
              rmSync(staging, { recursive: true, force: true });
              return resolve({ pkg, ok: false });
            }
            writeFileSync(path.join(staging, '.complete'), `${pkg}@${version}\n`);
            rmSync(dir, { recursive: true, force: true });
            renameSync(staging, dir);
            console.log(`real CLIs: installed ${pkg}@${version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
            resolve({ pkg, ok: true });
          });
        }
      }),
  ),
);
const failed = results.filter((r) => !r.ok);
if (failed.length) {
  console.error(`real CLIs: failed to install ${failed.map((f) => f.pkg).join(', ')}`);
  process.exit(1);
}
