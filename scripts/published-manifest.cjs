// What a package.json looks like once published: the workspace manifest minus everything that
// only makes sense inside this repository. Used by .pnpmfile.cjs's `beforePacking` hook (so
// `pnpm pack`, `pnpm publish` and `changeset publish` all ship it) and by the checks that compare
// a packed manifest against it. CommonJS because pnpm loads .pnpmfile.cjs with require().

'use strict';

/** The export condition that points the repository's typecheck and jest at `src/`; never shipped. */
const SOURCE_CONDITION = 'toolbridge-source';

/** `src/` is not shipped (`files` is `dist`), so nothing published may point into it. */
const pointsIntoSrc = (target) => typeof target === 'string' && /^\.\/src\//.test(target);

function strip(value) {
  if (typeof value === 'string') return pointsIntoSrc(value) ? undefined : value;
  if (!value || typeof value !== 'object') return value;
  const out = {};
  for (const [key, target] of Object.entries(value)) {
    if (key === SOURCE_CONDITION) continue;
    const kept = strip(target);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The published form of `pkg` (a copy; `pkg` is not changed):
 * - `exports` loses the `toolbridge-source` condition, and a subpath left with only `src/`
 *   targets (the `./testing` entry points, which need the private test kit) is dropped;
 * - `devDependencies` go (they name the private test kit and workspace-only packages);
 * - `scripts` go (`prepack` and `build` run repository files that are not shipped).
 */
function publishedManifest(pkg) {
  const out = { ...pkg };
  if (pkg.exports !== undefined) {
    const exports = strip(pkg.exports);
    if (exports === undefined) delete out.exports;
    else out.exports = exports;
  }
  delete out.devDependencies;
  delete out.scripts;
  return out;
}

module.exports = { publishedManifest, SOURCE_CONDITION };
