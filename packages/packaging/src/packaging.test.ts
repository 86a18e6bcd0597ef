import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { makeFakeMachine, type FakeMachine } from 'toolbridge/testing';
import { waitFor } from '@toolbridge/test-suite/kit';
import { REPOSITORY, ROOT } from '../../../scripts/workspace.mjs';
import { installConsumer, readmeLibraryExamples, readmeServeCommand, run, typecheck, type Ran } from './consumer.js';
import { CJS_REQUIRE, ESM_CHAT, typesCheck } from './fixtures.js';
import { packAll, PNPM, referencedFiles, relativeImports, type Tarball } from './tarballs.js';

/**
 * Toolbridge as npm users get it: every public workspace package (whatever packages exist; a new
 * one is covered without edits) packed with `pnpm pack` from the build `pnpm test` made, installed
 * with plain `npm` into one empty consumer project, and used there: ESM, require(), strict
 * TypeScript, the bridge's command as the README gives it, the dashboard, `doctor`, and a
 * publish dry run. The slow steps (npm install, the publish dry run, the two tsc runs) start in
 * beforeAll side by side; the tests await their results.
 */
let work: string;
let consumer: string;
let tarballs: Tarball[];
let machine: FakeMachine;
let publishDryRun: Promise<Ran>;
const typechecks: Partial<Record<'NodeNext' | 'Bundler', Promise<Ran>>> = {};
const names = () => tarballs.map((t) => t.pkg.manifest.name);
// npx and npm run with the fake machine's HOME; their cache stays the user's, so nothing is downloaded twice.
const npmCache = process.env.npm_config_cache ?? path.join(homedir(), '.npm');

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'toolbridge-packaging-'));
  tarballs = packAll(path.join(work, 'tarballs'));
  const filters = names().map((n) => `--filter=${n}`);
  publishDryRun = run('npx', [...PNPM, '-r', ...filters, 'publish', '--dry-run', '--no-git-checks'], {
    cwd: ROOT,
    env: { ...process.env, TOOLBRIDGE_PREPACK: 'check' },
    timeoutMs: 240_000,
  });
  consumer = path.join(work, 'consumer');
  await installConsumer(consumer, tarballs);
  mkdirSync(path.join(consumer, 'src'), { recursive: true });
  readmeLibraryExamples().forEach((code, i) =>
    writeFileSync(path.join(consumer, 'src', `readme-example-${i + 1}.ts`), `${code}\nexport {};\n`),
  );
  writeFileSync(path.join(consumer, 'src', 'all-packages.ts'), typesCheck(names()));
  for (const resolution of ['NodeNext', 'Bundler'] as const) typechecks[resolution] = typecheck(consumer, resolution);
  machine = await makeFakeMachine();
}, 300_000);

afterAll(async () => {
  await Promise.all([publishDryRun, ...Object.values(typechecks)]);
  await machine?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

describe('the packed tarballs', () => {
  it('hold the built entry points, README and LICENSE, and no sources, tests or source maps', () => {
    for (const t of tarballs) {
      const name = t.pkg.manifest.name;
      expect([name, t.files.filter((f) => !f.startsWith('dist/')).sort()]).toEqual([name, ['LICENSE', 'README.md', 'package.json']]);
      expect([name, t.files.filter((f) => /\.map$|\.test\.|\/testing\//.test(f))]).toEqual([name, []]);
      expect([name, referencedFiles(t.manifest).filter((f) => !t.files.includes(f))]).toEqual([name, []]);
    }
  });

  it('refer to nothing that is not shipped: every relative import of the JavaScript and the .d.ts files resolves inside the tarball', () => {
    for (const t of tarballs) {
      const missing = relativeImports(t).filter(({ from, to }) => {
        const candidates = from.endsWith('.d.ts') ? [to.replace(/\.js$/, '.d.ts'), `${to}.d.ts`, to] : [to];
        return !candidates.some((c) => t.files.includes(c));
      });
      expect([t.pkg.manifest.name, missing]).toEqual([t.pkg.manifest.name, []]);
    }
  });

  it('carry published manifests: metadata, real ranges for our own packages, no development-only condition, script or dependency', () => {
    const versions = new Map(tarballs.map((t) => [t.pkg.manifest.name, t.pkg.manifest.version]));
    for (const t of tarballs) {
      const m = t.manifest;
      expect(m).toMatchObject({
        license: 'MIT',
        engines: { node: expect.stringMatching(/^>=\d/) },
        repository: { type: 'git', url: `git+${REPOSITORY}.git`, directory: t.pkg.rel },
        homepage: `${REPOSITORY}/tree/main/${t.pkg.rel}#readme`,
        bugs: { url: `${REPOSITORY}/issues` },
      });
      const text = JSON.stringify(m);
      expect([m.name, text.includes('toolbridge-source'), text.includes('workspace:'), text.includes('./src/')]).toEqual([
        m.name,
        false,
        false,
        false,
      ]);
      expect([m.name, m.devDependencies, m.scripts]).toEqual([m.name, undefined, undefined]);
      for (const [dep, range] of Object.entries<string>(m.dependencies ?? {})) {
        if (versions.has(dep)) expect(`${dep}@${range}`).toBe(`${dep}@^${versions.get(dep)}`);
      }
    }
  });

  it('follow the manifest rules (scripts/manifests.mjs --check, with the built .d.ts files present)', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'manifests.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('installed with npm into an empty project', () => {
  it('ESM: toolbridge and a registry of core + the Ollama adapter chat with the in-test Ollama', async () => {
    writeFileSync(path.join(consumer, 'esm.mjs'), ESM_CHAT);
    const r = await run(process.execPath, ['esm.mjs'], { cwd: consumer, env: machine.env });
    expect(r.stderr).toBe('');
    const reply = machine.ollama.options.reply;
    expect(JSON.parse(r.stdout)).toEqual({ toolbridge: reply, registry: reply });
    expect(machine.ollama.chats.map((c) => c.messages.at(-1)?.content)).toEqual(['Say hello', 'Say hello again']);
  });

  it('CommonJS: require() of every package gives its exports (Node >= 20.19 loads ES modules; none has top-level await)', async () => {
    writeFileSync(path.join(consumer, 'require.cjs'), CJS_REQUIRE);
    const r = await run(process.execPath, ['require.cjs', JSON.stringify(names())], { cwd: consumer });
    expect(r.stderr).toBe(''); // no warning either (Node 20.20 loads them silently)
    const counts = JSON.parse(r.stdout) as Record<string, number | string>;
    for (const name of names()) expect([name, typeof counts[name]]).toEqual([name, 'number']);
    expect(Object.values(counts).filter((n) => n === 0)).toEqual([]);
  });

  it.each(['NodeNext', 'Bundler'] as const)(
    'TypeScript (%s resolution, strict, skipLibCheck false): the README example and every package compile with nothing else installed',
    async (resolution) => {
      const r = await typechecks[resolution]!;
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    },
    240_000,
  );
});

describe("the bridge's command, as the README gives it", () => {
  const env = () => ({ ...machine.env, npm_config_cache: npmCache, npm_config_update_notifier: 'false' });

  it('serves /health, the dashboard page and every asset it loads, and stops on Ctrl-C leaving no process', async () => {
    const [npx, ...args] = readmeServeCommand();
    expect(npx).toBe('npx');
    const child = spawn('npx', [...args, '--port', '0', '--quiet'], {
      cwd: consumer,
      env: env(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', () => reject(new Error('the command exited before printing its URL')));
      });
      const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
      expect(url).toBeDefined();
      const health = (await (await fetch(`${url}/health`)).json()) as { tools: Array<{ toolId: string; status: string }> };
      // The tools the fake machine has (a tool added later shows up too, healthy or not).
      expect(Object.fromEntries(health.tools.map((t) => [t.toolId, t.status]))).toMatchObject({
        codex: 'healthy',
        'claude-code': 'healthy',
        opencode: 'healthy',
        ollama: 'healthy',
      });
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/[^"]+)"/g)].map((m) => m[1]);
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of assets) expect([asset, (await fetch(`${url}${asset}`)).status]).toEqual([asset, 200]);
    } finally {
      process.kill(-child.pid!, 'SIGINT'); // Ctrl-C in the terminal: npm and the bridge (its own exit status is the CLI tests' business)
    }
    await exited;
    await waitFor(() => machine.livePids().length === 0, 10_000, 'every process of the command to end');
  }, 120_000);

  it('doctor prints every tool, installed', async () => {
    const [npx, ...args] = readmeServeCommand();
    const r = await run(
      npx,
      args.map((a) => (a === 'serve' ? 'doctor' : a)),
      { cwd: consumer, env: env(), timeoutMs: 60_000 },
    );
    expect(r.status).toBe(0);
    for (const id of ['codex', 'claude-code', 'opencode', 'ollama'])
      expect([id, new RegExp(`^${id} +yes `, 'm').test(r.stdout)]).toEqual([id, true]);
  }, 90_000);
});

describe('the release', () => {
  it('pnpm publish --dry-run of every public package passes (prepack included)', async () => {
    const r = await publishDryRun;
    expect(r.stderr.split('\n').filter((l) => /ERR_|npm error/.test(l))).toEqual([]);
    expect(r.status).toBe(0);
    for (const t of tarballs) expect(r.stdout + r.stderr).toContain(`${t.pkg.manifest.name}@${t.pkg.manifest.version}`);
  }, 240_000);
});
