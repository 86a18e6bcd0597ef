#!/usr/bin/env node
// Empties every workspace package's dist/ (run by `pnpm build` before building), so a renamed or
// deleted source, or a setting that stopped emitting files (source maps), leaves nothing behind
// that would be packed and published.

import { rmSync } from 'node:fs';
import path from 'node:path';
import { workspacePackages } from './workspace.mjs';

for (const pkg of workspacePackages()) rmSync(path.join(pkg.dir, 'dist'), { recursive: true, force: true });
