import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../../scripts/workspace.mjs';
import type { Tarball } from './tarballs.js';

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run a command to its end without blocking this process (the in-test Ollama and fake machine
 * answer from here while it runs).
 */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * An empty npm project that installs the tarballs with plain `npm`, as a user would. Every
 * tarball is a dependency and an override, so a package's `^0.1.0` on another of ours is served
 * by that package's tarball, never looked up on the registry; third-party dependencies come from
 * the registry through npm's cache (`--prefer-offline`).
 */
export async function installConsumer(dir: string, tarballs: readonly Tarball[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const specs = Object.fromEntries(tarballs.map((t) => [t.pkg.manifest.name, `file:${t.file}`]));
  const manifest = { name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: specs, overrides: specs };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const r = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    timeoutMs: 240_000,
  });
  if (r.status !== 0) throw new Error(`npm install of the tarballs failed:\n${r.stderr}`);
}

/** The TypeScript example of the root README's "Use it from Node.js" section. */
export function readmeLibraryExample(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it from Node.js'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md: no ```ts block under "Use it from Node.js"');
  return block[1];
}

/** The first command of the root README that starts the bridge with npx (what a user copies), as argv. */
export function readmeServeCommand(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const line = readme.split('\n').find((l) => /^\s*npx (-y )?@toolbridge\/bridge serve\b/.test(l));
  if (!line) throw new Error('README.md: no `npx @toolbridge/bridge serve` command');
  return line.split('#')[0].trim().split(/\s+/);
}

/**
 * A strict TypeScript consumer (`skipLibCheck: false`) over the consumer's `src/`, with NodeNext
 * or bundler resolution; tsc is the repository's own.
 */
export function typecheck(dir: string, resolution: 'NodeNext' | 'Bundler'): Promise<Ran> {
  const config = {
    compilerOptions: {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: 'ES2022',
      module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
      moduleResolution: resolution,
    },
    include: ['src/**/*.ts'],
  };
  const file = path.join(dir, `tsconfig.${resolution.toLowerCase()}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', file], { cwd: dir });
}
