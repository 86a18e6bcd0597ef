import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, pathWith, pathWithout, writeFakeBin } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { createEchoAgentAdapter, echoAgentScript } from './testing/example-adapter.js';

const scenarios: ConformanceScenario[] = ['ok', 'missing', 'hang', 'stall', 'unauthenticated', 'rate-limited', 'activity'];

async function machine(mode: string) {
  const tmp = await makeTempDir('toolbridge-echo-agent-');
  const bin = path.join(tmp.dir, 'bin');
  await writeFakeBin(bin, 'echo-agent', echoAgentScript(mode));
  return { tmp, env: { PATH: mode === 'missing' ? pathWithout() : pathWith(bin), HOME: path.join(tmp.dir, 'home') } };
}

// A fifth tool passes the same suite as the shipped ones, with nothing added to core or the test kit.
describeConformance({ describe, it, afterAll }, 'echo-agent (the kit’s example adapter)', {
  expectedText: 'Echo: Say hello',
  scenarios,
  async setup(scenario) {
    const { tmp, env } = await machine(scenario === 'activity' ? 'ok' : scenario);
    return { adapter: createEchoAgentAdapter(), env, cleanup: tmp.cleanup };
  },
});

describe('a fifth tool next to the others', () => {
  it('is discovered, configured under its own key, and chats through the registry', async () => {
    const { tmp, env } = await machine('ok');
    const registry = createRegistry({ adapters: [createEchoAgentAdapter()], env });
    try {
      registry.config.replace({ echoAgentModel: 'echo-2' });
      expect(registry.config.jsonSchema).toMatchObject({
        properties: { echoAgentModel: { type: 'string', 'x-toolbridge-group': 'echo-agent' } },
      });
      const [tool] = await registry.discover();
      expect(tool).toMatchObject({ id: 'echo-agent', available: true, version: '1.4.2', models: ['echo-2'], defaultModel: 'echo-2' });
      const result = await registry.chat('echo-agent', { messages: [{ role: 'user', content: 'hi there' }] });
      expect(result).toMatchObject({
        message: { content: 'Echo: hi there' },
        model: 'echo-2',
        activities: [{ kind: 'command', command: 'ls' }],
      });
    } finally {
      await registry.close();
      await tmp.cleanup();
    }
  });
});

describe('the conformance suite under node:test', () => {
  it('passes with the runner passed in (nodeTestRunner), not only under jest', () => {
    // The same suite, the same adapter, another runner: node's own, with TypeScript through tsx.
    const file = fileURLToPath(new URL('./testing/example-adapter.node-test.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const run = spawnSync(process.execPath, ['--conditions', 'toolbridge-source', '--import', 'tsx', '--test', file], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(run.stdout)?.[1] ?? NaN);
    expect({ status: run.status, fail: count('fail') }).toEqual({ status: 0, fail: 0 });
    expect(count('pass')).toBeGreaterThanOrEqual(12);
  }, 150_000);
});
