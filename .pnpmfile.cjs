// pnpm hooks. `beforePacking` (pnpm >= 10.28) writes the published package.json of every
// workspace package: see scripts/published-manifest.cjs for what it removes and why.

'use strict';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- pnpm loads this file with require()
const { publishedManifest } = require('./scripts/published-manifest.cjs');

module.exports = {
  hooks: {
    beforePacking(pkg) {
      return publishedManifest(pkg);
    },
  },
};
