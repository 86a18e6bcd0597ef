import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, processesWithEnv, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { startMockAnthropic, type MockAnthropicServer } from './testing/index.js';
import { realClaudeRegistry } from './testing/real.js';

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** Warm Claude Code processes that die while idle, and a start-up prewarm racing chats (real `claude` against the mock). */
describe('real claude: warm recovery', () => {
  let server: MockAnthropicServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  let registry: ToolRegistry;
  let home: string;

  beforeAll(async () => {
    server = await startMockAnthropic({ mode: 'ok', text: 'fine' });
    tmp = await makeTempDir('tb-claude-recovery-');
    ({ registry, home } = await realClaudeRegistry(server.url, path.join(tmp.dir, 'home')));
  });
  afterAll(async () => {
    await registry?.close();
    await server?.close();
    await tmp?.cleanup();
  });

  /** The warm Claude Code processes of this test's HOME. */
  const warmClaudes = () => processesWithEnv(`HOME=${home}`).filter((pid) => cmdline(pid).includes('--input-format'));
  const say = (content: string) => registry.chat('claude-code', { messages: [{ role: 'user', content }] }, { timeoutMs: 90_000 });

  it('while the start-up prewarm is starting, four chats at once leave at most warmMaxProcesses (4) processes', async () => {
    const prewarm = registry.prewarm();
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((c) => say(c)));
    await prewarm;
    expect(answers.map((a) => a.message.content)).toEqual(['fine', 'fine', 'fine', 'fine']);
    expect(warmClaudes().length).toBeLessThanOrEqual(4);
    expect(registry.load('claude-code').warm!.processes).toBeLessThanOrEqual(4);
  }, 240_000);

  it('idle processes killed just before two chats at once: both chats answer, from freshly started processes', async () => {
    for (let round = 0; round < 3; round++) {
      // Every chat so far was answered: each process is idle and has answered a turn (the next stateless chat needs `/clear`).
      await Promise.all(['e', 'f', 'g'].map((c) => say(c)));
      const idle = warmClaudes();
      expect(idle.length).toBeGreaterThanOrEqual(2);
      for (const pid of idle) process.kill(pid, 'SIGKILL');
      const answers = await Promise.all([say('one'), say('two')]);
      expect(answers.map((a) => [a.message.content, a.metadata.transport])).toEqual([
        ['fine', 'warm'],
        ['fine', 'warm'],
      ]);
      expect(await waitForPidsGone(idle, 10_000)).toEqual([]);
      expect(warmClaudes().filter((pid) => idle.includes(pid))).toEqual([]);
    }
  }, 300_000);
});
