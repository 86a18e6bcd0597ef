// The workspace's packages, read the way pnpm reads them (pnpm-workspace.yaml's `packages` globs,
// here only the `dir/*` form the repository uses), for the scripts that check and pack them.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The public repository: package manifests and README links point here. */
export const REPOSITORY = 'https://github.com/toolbridge/toolbridge';

/** Every workspace package as `{ dir, rel, manifest }` (rel: its path from the root, with `/`). */
export function workspacePackages(root = ROOT) {
  const yaml = readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [...yaml.matchAll(/^\s*-\s*['"]?([^'"\s]+)\/\*['"]?\s*$/gm)].map((m) => m[1]);
  const found = [];
  for (const parent of globs) {
    const base = path.join(root, parent);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const file = path.join(base, name, 'package.json');
      if (!existsSync(file)) continue;
      found.push({ dir: path.join(base, name), rel: `${parent}/${name}`, manifest: JSON.parse(readFileSync(file, 'utf8')) });
    }
  }
  return found;
}

/** The packages that are published: every workspace package not marked `"private": true`. */
export function publicPackages(root = ROOT) {
  return workspacePackages(root).filter((p) => p.manifest.private !== true);
}

/** Workspace packages `pkg` depends on at run time (`dependencies` with the `workspace:` protocol), dependencies first. */
export function workspaceClosure(name, packages = workspacePackages()) {
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const order = [];
  const seen = new Set();
  const visit = (n) => {
    if (seen.has(n)) return;
    seen.add(n);
    const pkg = byName.get(n);
    if (!pkg) return;
    for (const [dep, range] of Object.entries(pkg.manifest.dependencies ?? {})) {
      if (String(range).startsWith('workspace:')) visit(dep);
    }
    order.push(pkg);
  };
  visit(name);
  return order;
}
