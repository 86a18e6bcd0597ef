// The memory of `toolbridge serve` as a user leaves it running (issue 31): the whole process tree
// (the bridge, its spawner, every tool process under it), from /proc, with Claude Code, Codex and
// OpenCode installed and logged in (the real, pinned CLIs against mock model servers, one
// throwaway HOME):
//  1. started, discovery and health probed, no chat yet: no warm process (none was used lately);
//  2. after one chat to each tool: its warm process running, the tree with each added in turn.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { mockProviderConfig, startMockOpenAIServer } from '../packages/adapter-opencode/src/testing/mock-openai-server.ts';
import { startMockAnthropic } from '../packages/adapter-claude-code/src/testing/mock-anthropic.ts';
import { realClaudeEnv } from '../packages/adapter-claude-code/src/testing/real.ts';
import { startMockResponsesServer } from '../packages/adapter-codex/src/testing/mock-responses-server.ts';
import { descendants, rssBytes } from '../packages/adapter-kit/src/proc.ts';
import { makeTempDir, pathWith, realCliBinDir } from '../packages/test-suite/src/index.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { timeChat } from './lib/chat-timing.mjs';

const MiB = 2 ** 20;
/** Resident memory of a process and everything under it, from /proc. */
const treeRss = (root) => [root, ...descendants(root)].reduce((sum, pid) => sum + rssBytes(pid), 0);
const settle = (ms) => new Promise((r) => setTimeout(r, ms));

export default async function () {
  const anthropic = await startMockAnthropic({ mode: 'ok', text: 'Hello from mock' });
  const responses = await startMockResponsesServer({ kind: 'reply', text: 'Hello from mock' });
  const openai = await startMockOpenAIServer();
  const home = await makeTempDir('toolbridge-bench-idle-memory-');
  const codexHome = path.join(home.dir, '.codex');
  await responses.writeCodexConfig(codexHome);
  const env = {
    ...realClaudeEnv(anthropic.url, home.dir),
    PATH: pathWith(realCliBinDir('claude-code'), realCliBinDir('codex'), realCliBinDir('opencode')),
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CODEX_HOME: codexHome,
    MOCK_API_KEY: 'dummy',
    XDG_CACHE_HOME: path.join(home.dir, '.cache'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_CONFIG_CONTENT: mockProviderConfig(openai.baseURL),
    TOOLBRIDGE_OPENCODE_MODEL: 'mock/mock-model',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    TOOLBRIDGE_LOG: 'off',
  };
  // Each CLI run once first (OpenCode sets up its cache on its first run, longer than a probe's bound here).
  for (const [command, args] of [
    ['opencode', ['--version']],
    ['codex', ['--version']],
    ['claude', ['--version']],
  ])
    await new Promise((resolve) => execFile(command, args, { env, timeout: 120_000 }, resolve));
  const bridge = await startBridge(env);
  try {
    // A tool's first probe on a loaded machine can outlast its bound (OpenCode's first `--version`
    // sets up its cache): probe again until all three answer.
    const wanted = ['claude-code', 'codex', 'opencode'];
    // A probe on a loaded machine can outlast its bound (`opencode --version` took 17 s here at a
    // load of 25): probe a few times; the figures name the tools that were ready.
    let ready = [];
    for (let i = 0; i < 4 && ready.length < wanted.length; i++) {
      await fetch(`${bridge.url}/discover?refresh=true`);
      const health = await (await fetch(`${bridge.url}/health?refresh=true`)).json();
      ready = wanted.filter((id) => health.tools.some((t) => t.toolId === id && t.available && t.authenticated));
    }
    if (ready.length === 0) throw new Error('no tool is installed and logged in here');
    await settle(3000); // probes done, their processes gone
    const idle = treeRss(bridge.pid);
    const results = [
      {
        name: `serve, ${ready.length} tools logged in (${ready.join(', ')}), no chat yet: whole process tree RSS`,
        value: idle / MiB,
        unit: 'MiB',
        digits: 0,
        target: 150,
        better: 'lower',
      },
    ];
    for (const id of ready) {
      const chat = await timeChat(bridge.url, id, { timeoutMs: 120_000 });
      if (chat.transport !== 'warm') throw new Error(`${id}: expected the warm transport, got ${chat.transport}`);
      await settle(1000);
      results.push({
        name: `… and ${id}'s warm process running: whole tree RSS`,
        value: treeRss(bridge.pid) / MiB,
        unit: 'MiB',
        digits: 0,
      });
    }
    return results;
  } finally {
    await bridge.stop();
    await Promise.all([anthropic.close(), responses.close(), openai.close()]);
    await home.cleanup();
  }
}
