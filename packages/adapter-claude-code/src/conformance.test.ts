import { afterAll, describe, it } from '@jest/globals';
import path from 'node:path';
import { makeTempDir, pathWith, pathWithout } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { readFileSync } from 'node:fs';
import { createClaudeCodeAdapter } from './index.js';
import { capture, writeFakeClaude, type FakeClaudeSpec } from './testing/fake-claude.js';

const specs: Record<string, FakeClaudeSpec> = {
  ok: { chat: { stdoutFile: capture('claude-partial-stream.out') }, authStatus: { stdoutFile: capture('claude-auth-status-apikey.out') } },
  hang: { chat: { hang: true } },
  unauthenticated: {
    chat: { stdoutFile: capture('claude-p-stream.out'), exitCode: 1 },
    authStatus: { stdoutFile: capture('claude-auth-status-loggedout.out'), exitCode: 1 },
  },
  'rate-limited': { chat: { stdoutFile: capture('claude-429-stream.out'), exitCode: 1 } },
  // A real --json-schema run: the answer is the StructuredOutput call.
  json: { chat: { stdoutFile: capture('claude-structured.out') } },
  // A real workspace-write run: commands, file changes, a denied write, a read.
  activity: { chat: { stdoutFile: capture('claude-agent-workspace-write.out') } },
  // The first streamed lines of an answer, then nothing more.
  stall: {
    chat: { stdout: readFileSync(capture('claude-partial-stream.out'), 'utf8').split('\n').slice(0, 5).join('\n') + '\n', hang: true },
  },
};

for (const transport of ['spawn', 'warm'] as const) {
  describeConformance({ describe, it, afterAll }, `claude-code (${transport})`, {
    expectedText: 'Hello from mock',
    expectedJson: { name: 'Ada', age: 36 },
    scenarios: ['missing', ...(Object.keys(specs) as ConformanceScenario[])],
    async setup(scenario) {
      const { dir, cleanup } = await makeTempDir('tb-claude-conf-');
      const binDir = path.join(dir, 'bin');
      if (scenario !== 'missing') await writeFakeClaude(binDir, specs[scenario]!);
      return {
        adapter: createClaudeCodeAdapter({ stateDir: path.join(dir, 'state'), warm: transport === 'warm' }),
        env: { PATH: scenario === 'missing' ? pathWithout() : pathWith(binDir), HOME: path.join(dir, 'home') },
        // Warm processes outlive a chat by design; a short idle time ends them within the suite's bounds.
        ...(transport === 'warm' ? { config: { warmIdleMs: 200 } } : {}),
        cleanup,
      };
    },
  });
}
