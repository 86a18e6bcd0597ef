#!/usr/bin/env node
// `prepack` of every published package (pnpm pack / pnpm publish / changeset publish run it in
// the package's folder): makes sure `dist/` is a build of the current sources, so packing from a
// fresh clone ships dist, then checks that every file the published manifest names is there.
//
// A package (and each workspace package it depends on, dependencies first) is rebuilt from an
// empty dist/ when dist/ is missing or older than its package.json, tsconfig files, any file or
// folder below its other folders (a deleted source changes its folder's time) or tsconfig.base.json. An up-to-date build is packed as
// it is: `pnpm test` builds once and the packaging test packs that build.
// TOOLBRIDGE_PREPACK=check refuses a stale build instead of rebuilding it (the packaging test
// sets it: it runs beside other tests that use dist/, which a rebuild would pull from under them).

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT, workspaceClosure, workspacePackages } from './workspace.mjs';

const { publishedManifest } = createRequire(import.meta.url)('./published-manifest.cjs');
const SKIP = new Set(['dist', 'node_modules']);

/** [newest mtime of the inputs, oldest mtime of dist's files (0 when there are none)] */
function times(dir) {
  let newest = statSync(path.join(ROOT, 'tsconfig.base.json')).mtimeMs;
  const inputs = (d) => {
    newest = Math.max(newest, statSync(d).mtimeMs);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) inputs(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  // The package's own top level: its folders (src, dashboard, scripts) and JSON (package.json,
  // tsconfig.build.json); README, LICENSE and CHANGELOG are shipped as they are, not built.
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    if (e.isDirectory()) inputs(path.join(dir, e.name));
    else if (e.name.endsWith('.json')) newest = Math.max(newest, statSync(path.join(dir, e.name)).mtimeMs);
  }
  let oldest = Infinity;
  const outputs = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) outputs(p);
      else oldest = Math.min(oldest, statSync(p).mtimeMs);
    }
  };
  const dist = path.join(dir, 'dist');
  if (existsSync(dist)) outputs(dist);
  return [newest, oldest === Infinity ? 0 : oldest];
}

function ensureBuilt(pkg) {
  const [newest, oldest] = times(pkg.dir);
  if (oldest > newest) return;
  const why = oldest === 0 ? 'no dist/' : 'dist/ is older than its sources';
  if (process.env.TOOLBRIDGE_PREPACK === 'check') {
    throw new Error(`${pkg.manifest.name}: ${why}; run \`npx -y pnpm@10.34.9 run build\` first`);
  }
  const script = pkg.manifest.scripts?.build;
  if (!script) return; // nothing to build (a dependency without a build, e.g. types only)
  process.stderr.write(`prepack: building ${pkg.manifest.name} (${why})\n`);
  rmSync(path.join(pkg.dir, 'dist'), { recursive: true, force: true });
  const bins = [path.join(pkg.dir, 'node_modules', '.bin'), path.join(ROOT, 'node_modules', '.bin')];
  const r = spawnSync(script, {
    cwd: pkg.dir,
    shell: true,
    stdio: 'inherit',
    env: { ...process.env, PATH: [...bins, process.env.PATH].join(path.delimiter) },
  });
  if (r.status !== 0) throw new Error(`${pkg.manifest.name}: build failed (${script})`);
}

/** Every file the published manifest points at (exports targets, main, types, bin). */
function referencedFiles(manifest) {
  const files = new Set();
  const walk = (v) => {
    if (typeof v === 'string') files.add(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  for (const k of ['main', 'types', 'typings', 'module']) if (manifest[k]) files.add(manifest[k]);
  return [...files].filter((f) => !f.includes('*'));
}

function main() {
  const dir = process.cwd();
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const packages = workspacePackages();
  for (const pkg of workspaceClosure(manifest.name, packages)) ensureBuilt(pkg);
  const missing = referencedFiles(publishedManifest(manifest)).filter((f) => !existsSync(path.join(dir, f)));
  if (missing.length > 0)
    throw new Error(`${manifest.name}: the published package.json names files that are not there: ${missing.join(', ')}`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`prepack: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
