#!/usr/bin/env node
// The rules every published (non-private) workspace package's package.json follows, in one place
// so a new package is covered without edits: `node scripts/manifests.mjs` (`pnpm manifests`)
// writes them, `--check` (run by `pnpm lint`) fails on any package that breaks one. The rules
// about what gets shipped live in published-manifest.cjs (applied at pack time); these are the
// ones the source manifest must carry. DEVELOPERS.md ("Packaging") explains each.

import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { publicPackages, REPOSITORY, ROOT } from './workspace.mjs';

/** require(esm) without a flag and without a warning needs Node 20.19 (the `default` export condition relies on it). */
export const MIN_NODE = '20.19';
const PREPACK = 'node ../../scripts/prepack.mjs';
/** Key order of a written manifest; keys not listed keep their order after these. */
const ORDER = ['name', 'version', 'description', 'keywords', 'license', 'repository', 'homepage', 'bugs', 'type', 'engines'];
const LATE = [
  'exports',
  'main',
  'types',
  'bin',
  'files',
  'scripts',
  'publishConfig',
  'dependencies',
  'peerDependencies',
  'devDependencies',
];

const minNode = (range) => /^>=\s*(\d+(?:\.\d+)*)$/.exec(String(range ?? '').trim())?.[1];
const atLeast = (v, min) => {
  const [a, b] = [v.split('.').map(Number), min.split('.').map(Number)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
};

/** `{ types, import }` gains `default` (= `import`): what `require()` and other conditions resolve to. */
function withDefault(exports) {
  if (!exports || typeof exports !== 'object') return exports;
  if ('import' in exports && typeof exports.import === 'string') {
    const { default: _old, ...rest } = exports;
    return { ...rest, default: exports.import };
  }
  return Object.fromEntries(Object.entries(exports).map(([k, v]) => [k, withDefault(v)]));
}

/** Type packages the built .d.ts files need (dist must exist): `@types/node` and `@types/<dep>` for untyped dependencies. */
function typeDependencies(dir, manifest) {
  const dist = path.join(dir, 'dist');
  if (!existsSync(dist)) return undefined;
  const needed = new Set();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, e.name);
      if (e.isDirectory()) walk(file);
      else if (e.name.endsWith('.d.ts')) {
        const text = readFileSync(file, 'utf8');
        if (/['"]node:|\bNodeJS\.|\bBuffer\b|reference types="node"/.test(text)) needed.add('@types/node');
        for (const [, spec] of text.matchAll(/(?:from |import\()\s*'([^.'][^']*)'/g)) {
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
          const own = path.join(ROOT, 'node_modules', '@types', name.replace(/^@/, '').replace('/', '__'));
          if (manifest.dependencies?.[name] && existsSync(own)) needed.add(`@types/${name.replace(/^@/, '').replace('/', '__')}`);
        }
      }
    }
  };
  walk(dist);
  return needed;
}

/** The manifest with every rule applied, and the problems found in the one given. */
export function normalise({ dir, rel, manifest }) {
  const problems = [];
  const want = { ...manifest };
  const expect = (key, value, why) => {
    if (JSON.stringify(manifest[key]) !== JSON.stringify(value)) problems.push(`${key} must be ${JSON.stringify(value)} (${why})`);
    want[key] = value;
  };
  expect('license', 'MIT', 'the repository LICENSE');
  expect('repository', { type: 'git', url: `git+${REPOSITORY}.git`, directory: rel }, 'npm links the package page to its folder');
  expect('homepage', `${REPOSITORY}/tree/main/${rel}#readme`, 'the package README on GitHub');
  expect('bugs', { url: `${REPOSITORY}/issues` }, 'where users report problems');
  const node = minNode(manifest.engines?.node);
  if (!node || !atLeast(node, MIN_NODE)) {
    problems.push(`engines.node must be ">=${MIN_NODE}" or higher (require(esm) needs it)`);
    want.engines = { ...manifest.engines, node: `>=${MIN_NODE}` };
  }
  if (manifest.exports === undefined) problems.push('exports is missing');
  const exports = withDefault(manifest.exports);
  if (JSON.stringify(exports) !== JSON.stringify(manifest.exports))
    problems.push('every export with `import` needs `default` (the same file) after it, for require()');
  want.exports = exports;
  if (!Array.isArray(manifest.files) || !manifest.files.includes('dist')) {
    problems.push('files must list "dist"');
    want.files = [...new Set([...(manifest.files ?? []), 'dist'])];
  }
  if (manifest.scripts?.build === undefined) problems.push('scripts.build is missing (prepack runs it)');
  if (manifest.scripts?.prepack !== PREPACK) problems.push(`scripts.prepack must be "${PREPACK}" (builds dist before packing)`);
  want.scripts = { ...manifest.scripts, prepack: PREPACK };
  if (manifest.publishConfig?.access !== 'public')
    problems.push('publishConfig.access must be "public" (scoped packages are private by default)');
  want.publishConfig = { ...manifest.publishConfig, access: 'public' };
  for (const dep of typeDependencies(dir, manifest) ?? []) {
    if (manifest.dependencies?.[dep]) continue;
    const range = dep === '@types/node' ? `>=${MIN_NODE}` : readRootRange(dep);
    problems.push(`dependencies must include ${dep} (the published .d.ts files use its types)`);
    want.dependencies = Object.fromEntries(Object.entries({ ...want.dependencies, [dep]: range }).sort(([a], [b]) => a.localeCompare(b)));
  }
  const readme = path.join(dir, 'README.md');
  if (!existsSync(readme)) problems.push('README.md is missing (the registry page)');
  else if (absoluteLinks(readFileSync(readme, 'utf8'), dir) !== readFileSync(readme, 'utf8')) {
    problems.push('README.md has relative links or images: they break on the registry page (use GitHub URLs)');
  }
  if (!sameFile(path.join(ROOT, 'LICENSE'), path.join(dir, 'LICENSE')))
    problems.push('LICENSE must be a copy of the root LICENSE (npm ships it)');
  return { problems, manifest: ordered(want) };
}

function readRootRange(dep) {
  const root = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return root.devDependencies?.[dep] ?? '*';
}

/**
 * The README with every relative link made a GitHub URL (images: raw.githubusercontent.com, so the
 * registry page shows them; folders: /tree/main/; files: /blob/main/). Anchors (#x) stay as they are.
 */
export function absoluteLinks(markdown, dir) {
  return markdown.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang, text, target) => {
    if (/^([a-z][a-z0-9+.-]*:|#)/i.test(target)) return whole;
    const [file, anchor = ''] = target.split(/(?=#)/);
    const abs = path.resolve(dir, file);
    const rel = path.relative(ROOT, abs).split(path.sep).join('/');
    const repo = REPOSITORY.replace('https://github.com/', '');
    const isDir = existsSync(abs) && statSync(abs).isDirectory();
    const url = bang
      ? `https://raw.githubusercontent.com/${repo}/main/${rel}`
      : `${REPOSITORY}/${isDir ? 'tree' : 'blob'}/main/${rel}${anchor}`;
    return `${bang}[${text}](${url})`;
  });
}

const sameFile = (a, b) => existsSync(b) && readFileSync(a, 'utf8') === readFileSync(b, 'utf8');

function ordered(manifest) {
  const keys = Object.keys(manifest);
  const rest = keys.filter((k) => !ORDER.includes(k) && !LATE.includes(k));
  const out = {};
  for (const k of [...ORDER, ...rest, ...LATE]) if (k in manifest) out[k] = manifest[k];
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const check = process.argv.includes('--check');
  let failed = 0;
  for (const pkg of publicPackages()) {
    const { problems, manifest } = normalise(pkg);
    if (check) {
      for (const p of problems) console.error(`${pkg.rel}/package.json: ${p}`);
      failed += problems.length;
      continue;
    }
    writeFileSync(path.join(pkg.dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const readme = path.join(pkg.dir, 'README.md');
    if (existsSync(readme)) writeFileSync(readme, absoluteLinks(readFileSync(readme, 'utf8'), pkg.dir));
    copyFileSync(path.join(ROOT, 'LICENSE'), path.join(pkg.dir, 'LICENSE'));
    if (problems.length > 0) console.log(`${pkg.rel}: ${problems.length} fixed`);
  }
  if (failed > 0) {
    console.error(`\n${failed} problem(s): run \`npx -y pnpm@10.34.9 manifests\` to fix them, see DEVELOPERS.md "Packaging"`);
    process.exit(1);
  }
}
