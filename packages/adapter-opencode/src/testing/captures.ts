import { readFileSync } from 'node:fs';

/** The raw bytes (as UTF-8 text) of a recorded OpenCode output in `./captures/`. */
export function capture(name: string): string {
  return readFileSync(new URL(`./captures/${name}`, import.meta.url), 'utf8');
}
