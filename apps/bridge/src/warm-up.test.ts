import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scriptedAdapter, waitFor, type ScriptedAdapter } from '@toolbridge/test-suite/kit';
import { startTestBridge, type TestBridge } from './testing/harness.js';

const dirs: string[] = [];
const bridges: TestBridge[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) await b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A tool with a warm transport whose warm-ups are counted. */
function warmTool(id: string, login: 'logged-in' | 'logged-out'): ScriptedAdapter & { prewarms: number } {
  const tool = Object.assign(scriptedAdapter(id, { login }), { prewarms: 0 });
  tool.prewarm = async () => void tool.prewarms++;
  return tool;
}

describe('serve start-up: warm processes only for tools in use', () => {
  it('starts those logged in and used in the last 7 days, and those named; never a logged-out one; remembers use across restarts', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'tb-warm-up-'));
    dirs.push(stateDir);
    const day = 24 * 60 * 60_000;
    const record = { used: Date.now() - day, loggedOut: Date.now() - day, stale: Date.now() - 8 * day };
    writeFileSync(path.join(stateDir, 'recent-tools.json'), JSON.stringify(record));
    const tools = {
      used: warmTool('used', 'logged-in'),
      loggedOut: warmTool('loggedOut', 'logged-out'),
      stale: warmTool('stale', 'logged-in'),
      named: warmTool('named', 'logged-in'),
      unused: warmTool('unused', 'logged-in'),
    };
    const b = await startTestBridge(Object.values(tools), { warmUp: ['named'], stateDir });
    bridges.push(b);
    await waitFor(() => tools.used.prewarms === 1 && tools.named.prewarms === 1, 10_000, 'the warm-ups');
    // Health has been checked by then (the recent tools are started after it); nothing else follows.
    await new Promise((r) => setTimeout(r, 200));
    expect(Object.fromEntries(Object.entries(tools).map(([k, t]) => [k, t.prewarms]))).toEqual({
      used: 1,
      loggedOut: 0,
      stale: 0,
      named: 1,
      unused: 0,
    });

    // A chat to a tool makes it one to start next time.
    const res = await b.request('/chat/unused', { method: 'POST', json: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(res.status).toBe(200);
    bridges.splice(0);
    await b.close();
    const saved = JSON.parse(readFileSync(path.join(stateDir, 'recent-tools.json'), 'utf8')) as Record<string, number>;
    expect(Object.keys(saved).sort()).toEqual(['loggedOut', 'stale', 'unused', 'used']);
    expect(saved.unused).toBeGreaterThan(Date.now() - 60_000);
  });

  it('warmUp false starts nothing and writes nothing', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'tb-warm-up-'));
    dirs.push(stateDir);
    const tool = warmTool('alpha', 'logged-in');
    const b = await startTestBridge([tool], { warmUp: false, stateDir });
    await b.request('/chat/alpha', { method: 'POST', json: { messages: [{ role: 'user', content: 'hi' }] } });
    await b.close();
    expect(tool.prewarms).toBe(0);
    expect(() => readFileSync(path.join(stateDir, 'recent-tools.json'))).toThrow();
  });
});
