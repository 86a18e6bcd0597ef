// Runs every benchmarks/*.bench.mjs against the built packages (pnpm bench builds first),
// prints one line per measurement with its target, and writes all of it, with a
// description of the machine, to docs/benchmarks.md (followed by benchmarks/notes.md).
// Exits 1 if a target is missed. `node benchmarks/run.mjs <name>` runs the matching files
// only and leaves docs/benchmarks.md alone.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
let missed = 0;
const sections = [];
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .sort()) {
  if (only && !file.includes(only)) continue;
  const mod = await import(pathToFileURL(path.join(dir, file)).href);
  console.log(`\n# ${file}`);
  const rows = [];
  for (const r of await mod.default()) {
    // A row without a target is a reading that puts the others in context.
    const ok = r.target === undefined ? undefined : r.better === 'lower' ? r.value <= r.target : r.value >= r.target;
    if (ok === false) missed++;
    const value = `${r.value.toFixed(r.digits ?? 1)} ${r.unit}`;
    const target = r.target === undefined ? '' : `${r.better === 'lower' ? '≤' : '≥'} ${r.target} ${r.unit}`;
    console.log(`${ok === undefined ? '    ' : ok ? 'ok  ' : 'MISS'} ${r.name}: ${value}${target ? ` (target ${target})` : ''}`);
    rows.push(`| ${r.name} | ${value} | ${target} | ${ok === undefined ? '' : ok ? 'met' : '**missed**'} |`);
  }
  sections.push(`### ${file}\n\n| measurement | value | target | |\n|---|---|---|---|\n${rows.join('\n')}\n`);
}

if (!only) {
  const cpus = os.cpus();
  const machine = [
    `- CPU: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} cores`,
    `- memory: ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    `- OS: ${os.type()} ${os.release()} (${os.arch()})`,
    `- Node.js ${process.version}`,
  ].join('\n');
  const notes = readFileSync(path.join(dir, 'notes.md'), 'utf8');
  const doc = `# Benchmarks\n\nWritten by \`npx -y pnpm@10.34.9 bench\` (which builds first) on ${new Date().toISOString().slice(0, 10)}; ${missed ? `${missed} target(s) missed` : 'every target met'}.\n\n## Machine\n\n${machine}\n\n## Results\n\n${sections.join('\n')}\n${notes}`;
  writeFileSync(path.join(dir, '..', 'docs', 'benchmarks.md'), doc);
  console.log('\nwrote docs/benchmarks.md');
}
process.exit(missed ? 1 : 0);
