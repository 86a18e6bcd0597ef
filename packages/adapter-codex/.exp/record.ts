import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMockResponsesServer } from '../src/testing/mock-responses-server.js';
import { realCliBinDir, pathWith } from '@toolbridge/test-suite';
const PATCH = '*** Begin Patch\n*** Add File: patched.txt\n+hello from apply_patch\n*** End Patch\n';
const mock = await startMockResponsesServer();
mock.queue({ kind: 'calls', calls: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: `apply_patch <<'EOF'\n${PATCH}EOF` } }] }, { kind: 'reply', text: 'All done.' });
const home = mkdtempSync(path.join(tmpdir(), 'cxr-home-'));
const cwd = mkdtempSync(path.join(tmpdir(), 'cxr-agent-'));
const codexHome = path.join(home, '.codex');
await mock.writeCodexConfig(codexHome);
const child = spawn('codex', ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '-c', 'tools.update_plan.enabled=true', '-'], {
  cwd, env: { PATH: pathWith(realCliBinDir('codex')), HOME: home, CODEX_HOME: codexHome, MOCK_API_KEY: 'x', TMPDIR: '/tmp' },
});
child.stdin.end('Do the task');
const r = { stdout: '', stderr: '', status: 0 as number | null };
child.stdout.on('data', (d) => (r.stdout += d));
child.stderr.on('data', (d) => (r.stderr += d));
r.status = await new Promise((res) => child.on('close', res));
const out = 'src/testing/captures/codex-ro-shell-patch';
writeFileSync(`${out}.out`, r.stdout); writeFileSync(`${out}.err`, r.stderr);
const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((x) => (x.isDirectory() ? walk(path.join(d, x.name)) : [path.join(d, x.name)]));
copyFileSync(walk(path.join(codexHome, 'sessions'))[0]!, `${out}.rollout.jsonl`);
console.log(r.status, r.stdout);
await mock.close();
