import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { publicPackages, ROOT, type WorkspacePackage } from '../../../scripts/workspace.mjs';

/** `pnpm` as the repository pins it. */
export const PNPM = ['-y', 'pnpm@10.34.9'];

export interface Tarball {
  pkg: WorkspacePackage;
  file: string;
  /** Where it was unpacked (the tarball's `package/` folder). */
  root: string;
  /** Paths inside the tarball, without the leading `package/`. */
  files: string[];
  /** The package.json that was packed. */
  manifest: Record<string, any>;
}

/**
 * `pnpm pack` of every public workspace package into `dest`, from the build `pnpm test` made
 * (TOOLBRIDGE_PREPACK=check: prepack refuses a stale dist/ rather than rebuilding it under the
 * tests that run beside this one).
 */
export function packAll(dest: string): Tarball[] {
  const packages = publicPackages();
  const filters = packages.map((p) => `--filter=${p.manifest.name}`);
  execFileSync('npx', [...PNPM, '-r', ...filters, 'pack', '--pack-destination', dest], {
    cwd: ROOT,
    env: { ...process.env, TOOLBRIDGE_PREPACK: 'check' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return packages.map((pkg) => {
    const base = pkg.manifest.name.replace(/^@/, '').replace('/', '-');
    const file = path.join(dest, `${base}-${pkg.manifest.version}.tgz`);
    const unpacked = path.join(dest, 'unpacked', base);
    mkdirSync(unpacked, { recursive: true });
    execFileSync('tar', ['-xzf', file, '-C', unpacked]);
    const root = path.join(unpacked, 'package');
    const files = (readdirSync(root, { recursive: true, withFileTypes: true }) as Dirent[])
      .filter((e) => e.isFile())
      .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .sort();
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    return { pkg, file, root, files, manifest };
  });
}

/** The text of one file inside a tarball. */
export function readPacked(tarball: Tarball, file: string): string {
  return readFileSync(path.join(tarball.root, file), 'utf8');
}

/** Every file a manifest points at: exports targets, main, types, bin. */
export function referencedFiles(manifest: Record<string, any>): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') found.add(v.replace(/^\.\//, ''));
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  for (const k of ['main', 'types', 'typings', 'module']) walk(manifest[k]);
  return [...found];
}

/** Relative imports in shipped JavaScript and declarations, as tarball paths (`dist/x.js`). */
export function relativeImports(tarball: Tarball): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (const from of tarball.files.filter((f) => /\.(m?js|d\.ts)$/.test(f))) {
    const text = readPacked(tarball, from);
    for (const [, spec] of text.matchAll(/(?:from\s*|import\s*\(\s*|require\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      out.push({ from, to: path.posix.join(path.posix.dirname(from), spec) });
    }
    for (const [, spec] of text.matchAll(/sourceMappingURL=(\S+)/g))
      out.push({ from, to: path.posix.join(path.posix.dirname(from), spec) });
  }
  return out;
}
