// Each jest worker gets a private HOME, so nothing a test runs (sessions, tool state, CLI config)
// lands in the real home of whoever runs the suite. Tests that need a particular HOME set their own.
import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

// The pinned real CLIs stay where `pnpm clis` put them (under the real home's cache).
process.env.TOOLBRIDGE_CLI_CACHE ??= path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'toolbridge', 'clis');
delete process.env.XDG_CACHE_HOME;
const home = mkdtempSync(path.join(tmpdir(), 'toolbridge-jest-home-'));
process.env.HOME = home;
delete process.env.XDG_STATE_HOME;
delete process.env.XDG_CONFIG_HOME;
delete process.env.XDG_DATA_HOME;
