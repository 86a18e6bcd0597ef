import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a recorded OpenCode output in `./captures/` is. */
export function capturePath(name: string): string {
  return fileURLToPath(new URL(`./captures/${name}`, import.meta.url));
}

/** The raw bytes (as UTF-8 text) of a recorded OpenCode output in `./captures/`. */
export function capture(name: string): string {
  return readFileSync(capturePath(name), 'utf8');
}
