#!/usr/bin/env node
// Installs Debian's `chromium` for the dashboard's browser tests (playwright-core
// drives it; Playwright's own browser downloads are never used). Idempotent: does
// nothing when /usr/bin/chromium exists. Needs root and apt-get (the project's
// machines and CI are Debian and run as root); anything else gets a clear error
// saying what to install by hand.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

if (existsSync(CHROMIUM)) {
  console.log(`chromium: present at ${CHROMIUM}`);
  process.exit(0);
}

function fail(why) {
  console.error(`chromium: ${why}`);
  console.error(
    `chromium: the dashboard's browser tests need ${CHROMIUM}; install Debian's package with \`apt-get install -y chromium\` (as root), then run the tests again`,
  );
  process.exit(1);
}

if (process.platform !== 'linux') fail(`cannot install automatically on ${process.platform}`);
if (typeof process.getuid === 'function' && process.getuid() !== 0) fail('not running as root, so apt-get cannot install it');
if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0) fail('apt-get is not available on this machine');

const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const apt = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env }).status === 0;

const started = Date.now();
console.log('chromium: installing Debian package `chromium` with apt-get');
// A fresh machine may have no package lists yet; without them the install fails with "no installation candidate".
if (!apt(['install', '-y', '--no-install-recommends', 'chromium'])) {
  if (!apt(['update'])) fail('`apt-get update` failed');
  if (!apt(['install', '-y', '--no-install-recommends', 'chromium'])) fail('`apt-get install -y chromium` failed');
}
if (!existsSync(CHROMIUM)) fail(`the package installed but ${CHROMIUM} is missing`);
console.log(`chromium: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
