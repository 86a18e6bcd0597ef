#!/usr/bin/env node
// Installs the pinned real CLIs the integration tests drive into a cache
// directory outside the repo (TOOLBRIDGE_CLI_CACHE, default ~/.cache/toolbridge/clis).
// Idempotent: an installed pin is left alone. Versions must match
// packages/test-suite/src/real-clis.ts.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const CLIS = [
  { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  { pkg: '@anthropic-ai/claude-code', version: '2.1.330', bin: 'claude' },
  { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
];

const cache =
  process.env.TOOLBRIDGE_CLI_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'toolbridge', 'clis');
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
