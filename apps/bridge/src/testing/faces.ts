import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, '../../../..');
/** The `toolbridge` command's entry, from source. */
export const BRIDGE_CLI = path.join(REPO_ROOT, 'apps/bridge/src/cli.ts');
/** `toolbridge mcp|acp` over scripted tools (see face-fixture.ts). */
export const FACE_FIXTURE = path.join(here, 'face-fixture.ts');

/**
 * Node's argv that runs a TypeScript entry from source, wherever the host starts it (the loader
 * by absolute URL: a host's working directory need not be this repository).
 */
export function fromSource(entry: string, ...args: string[]): string[] {
  const tsx = pathToFileURL(path.join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  return ['--conditions=toolbridge-source', '--import', tsx, entry, ...args];
}
