// Runs every benchmarks/*.bench.mjs against the built packages (pnpm bench builds first)
// and prints one line per measurement with its target. Exits 1 if a target is missed.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
let missed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.bench.mjs')).sort()) {
  if (only && !file.includes(only)) continue;
  const mod = await import(pathToFileURL(path.join(dir, file)).href);
  console.log(`\n# ${file}`);
  for (const r of await mod.default()) {
    // A row without a target is a reading that puts the others in context.
    const ok = r.target === undefined ? undefined : r.better === 'lower' ? r.value <= r.target : r.value >= r.target;
    if (ok === false) missed++;
    console.log(`${ok === undefined ? '    ' : ok ? 'ok  ' : 'MISS'} ${r.name}: ${r.value.toFixed(r.digits ?? 1)} ${r.unit}${ok === undefined ? '' : ` (target ${r.better === 'lower' ? '<=' : '>='} ${r.target} ${r.unit})`}`);
  }
}
process.exit(missed ? 1 : 0);
