#!/usr/bin/env node
// Builds the dashboard into dist/dashboard/: compiles dashboard/src (browser
// TypeScript, own tsconfig) to ES modules and copies the page, the stylesheet
// and the icon beside them. The folder is emptied first so a renamed module
// never lingers.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(root, 'dashboard');
const out = path.join(root, 'dist', 'dashboard');
const STATIC_FILES = ['index.html', 'styles.css', 'icon.svg'];

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(source, 'tsconfig.json')], { stdio: 'inherit' });
if (result.status !== 0) {
  console.error('dashboard: TypeScript compilation failed');
  process.exit(result.status ?? 1);
}
// The page loads its own modules only: a value imported from a package (the wire types must be
// `import type`, which compiles away) would be a bare specifier the browser cannot resolve.
for (const file of readdirSync(out).filter((f) => f.endsWith('.js'))) {
  const text = readFileSync(path.join(out, file), 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? m[2],
  );
  const bare = specifiers.filter((s) => !s.startsWith('./') && !s.startsWith('../'));
  if (bare.length > 0) {
    console.error(`dashboard: ${file} imports ${bare.join(', ')} at run time; import types with \`import type\``);
    process.exit(1);
  }
}
for (const file of STATIC_FILES) copyFileSync(path.join(source, file), path.join(out, file));
