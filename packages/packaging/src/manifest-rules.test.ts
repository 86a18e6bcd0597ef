import { describe, expect, it } from '@jest/globals';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { absoluteLinks, normalise } from '../../../scripts/manifests.mjs';
import { publishedManifest } from '../../../scripts/published-manifest.cjs';
import { ROOT } from '../../../scripts/workspace.mjs';

/** A new adapter package as its author first writes it, before `pnpm manifests`. */
const NEW_PACKAGE = {
  name: '@toolbridge/adapter-new',
  version: '0.1.0',
  description: 'Toolbridge adapter for a new tool',
  type: 'module',
  exports: {
    '.': { 'toolbridge-source': './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' },
    './testing': { 'toolbridge-source': './src/testing/index.ts', default: './src/testing/index.ts' },
  },
  main: './dist/index.js',
  types: './dist/index.d.ts',
  files: ['dist'],
  scripts: { build: 'tsc -p tsconfig.build.json' },
  dependencies: { '@toolbridge/core': 'workspace:^' },
  devDependencies: { '@toolbridge/test-suite/kit': 'workspace:*' },
};

describe('scripts/manifests.mjs on a new package', () => {
  it('names every missing rule, and its own output passes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolbridge-manifest-'));
    try {
      writeFileSync(path.join(dir, 'README.md'), '# new\n');
      copyFileSync(path.join(ROOT, 'LICENSE'), path.join(dir, 'LICENSE'));
      const first = normalise({ dir, rel: 'packages/adapter-new', manifest: NEW_PACKAGE });
      expect(first.problems.map((p) => p.split(' ')[0])).toEqual([
        'license',
        'repository',
        'homepage',
        'bugs',
        'engines.node',
        'every',
        'scripts.prepack',
        'publishConfig.access',
      ]);
      expect(first.manifest.exports['.']).toEqual({
        'toolbridge-source': './src/index.ts',
        types: './dist/index.d.ts',
        import: './dist/index.js',
        default: './dist/index.js',
      });
      expect(first.manifest.repository).toEqual({
        type: 'git',
        url: 'git+https://github.com/toolbridge/toolbridge.git',
        directory: 'packages/adapter-new',
      });
      expect(normalise({ dir, rel: 'packages/adapter-new', manifest: first.manifest }).problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a stricter engines.node (the AI SDK provider needs Node 22)', () => {
    const { problems } = normalise({ dir: ROOT, rel: 'packages/x', manifest: { ...NEW_PACKAGE, engines: { node: '>=22' } } });
    expect(problems.filter((p) => p.startsWith('engines'))).toEqual([]);
    const older = normalise({ dir: ROOT, rel: 'packages/x', manifest: { ...NEW_PACKAGE, engines: { node: '>=20.10' } } });
    expect(older.manifest.engines).toEqual({ node: '>=20.19' });
  });

  it('makes README links and images absolute, leaving URLs and anchors alone', () => {
    const dir = path.join(ROOT, 'apps', 'bridge');
    const md =
      '[kit](../../packages/adapter-kit) ![shot](../../docs/dashboard.png) [api](docs/openai-api.md#models) [x](https://x.dev) [top](#top)';
    expect(absoluteLinks(md, dir)).toBe(
      '[kit](https://github.com/toolbridge/toolbridge/tree/main/packages/adapter-kit) ' +
        '![shot](https://raw.githubusercontent.com/toolbridge/toolbridge/main/docs/dashboard.png) ' +
        '[api](https://github.com/toolbridge/toolbridge/blob/main/apps/bridge/docs/openai-api.md#models) [x](https://x.dev) [top](#top)',
    );
  });
});

describe('the published manifest (.pnpmfile.cjs beforePacking)', () => {
  it('drops the source condition, the src-only ./testing entry, devDependencies and scripts; keeps the rest', () => {
    const out = publishedManifest(NEW_PACKAGE);
    expect(out.exports).toEqual({ '.': { types: './dist/index.d.ts', import: './dist/index.js' } });
    expect([out.devDependencies, out.scripts]).toEqual([undefined, undefined]);
    expect(out.dependencies).toEqual(NEW_PACKAGE.dependencies);
    expect(NEW_PACKAGE.exports['./testing']).toBeDefined(); // the workspace manifest is not changed
  });
});
