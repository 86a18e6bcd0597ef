#!/usr/bin/env node
// The whole jest suite (`pnpm jest`, run by `pnpm test`): the main suite on this Node (20), then
// @toolbridge/ai-sdk's tests on Node 22 (`ai` 7 needs it; see node22.mjs), then one closing line
// with the counts of both. Arguments (test paths, -t ...) go to both runs.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { node22Binary } from './node22.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const args = process.argv.slice(2);
// With a path filter one of the runs may hold no matching test; that is not a failure.
const extra = args.length > 0 ? ['--passWithNoTests'] : [];
const work = mkdtempSync(path.join(tmpdir(), 'toolbridge-jest-'));

function run(name, node, config) {
  const summary = path.join(work, `${name}.json`);
  const r = spawnSync(node, ['--experimental-vm-modules', jest, '--config', config, ...extra, ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TOOLBRIDGE_JEST_SUMMARY: summary },
  });
  let counts = { passed: 0, failed: 0, skipped: 0 };
  try {
    counts = JSON.parse(readFileSync(summary, 'utf8'));
  } catch {
    // jest ended before reporting (a config error, a crash): its exit status says so
  }
  return { ok: r.status === 0, counts };
}

const main = run('main', process.execPath, path.join(root, 'jest.config.js'));

let node22 = node22Binary();
if (!node22) {
  // A bare `pnpm jest` on a fresh clone: install the pinned Node (and the CLIs) first.
  spawnSync(process.execPath, [path.join(root, 'scripts', 'install-clis.mjs')], { stdio: 'inherit' });
  node22 = node22Binary();
}
const aiSdk = node22
  ? run('ai-sdk', node22, path.join(root, 'packages', 'ai-sdk', 'jest.config.js'))
  : (console.error('jest: no Node 22 for @toolbridge/ai-sdk (set TOOLBRIDGE_NODE22 to a Node 22+ binary)'),
    { ok: false, counts: { passed: 0, failed: 1, skipped: 0 } });
rmSync(work, { recursive: true, force: true });

const sum = (k) => main.counts[k] + aiSdk.counts[k];
process.stdout.write(`\ntotal: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped\n`);
process.exit(main.ok && aiSdk.ok ? 0 : 1);
