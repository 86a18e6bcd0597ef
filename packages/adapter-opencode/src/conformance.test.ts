import { afterAll, describe, it } from '@jest/globals';
import { makeTempDir, pathWithout } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { createOpenCodeAdapter } from './index.js';
import { capture } from './testing/captures.js';
import { eventLine, makeFakeOpenCode, type FakeOpenCodeSpec } from './testing/fake-opencode.js';

const runs: Record<string, FakeOpenCodeSpec> = {
  ok: {},
  hang: { run: { hang: true } },
  unauthenticated: { run: { stdout: capture('opencode-run-401.out'), exitCode: 1 } },
  'rate-limited': { run: { stdout: capture('oc-err.out'), exitCode: 1 } },
  stall: { run: { stdout: eventLine('text', { type: 'text', text: 'first part' }), hang: true } },
  // `run` has no schema option: core asks for JSON in words, the model answers with JSON text.
  json: { run: { stdout: eventLine('text', { type: 'text', text: JSON.stringify({ city: 'Paris' }) }) } },
  // A recorded turn: plan, commands, a written file, a failed edit, reasoning.
  activity: { run: { stdout: capture('opencode-run-activity.out') } },
};

describeConformance({ describe, it, afterAll }, 'opencode', {
  expectedText: 'Hello from mock',
  expectedJson: { city: 'Paris' },
  scenarios: ['missing', ...(Object.keys(runs) as ConformanceScenario[])],
  async setup(scenario) {
    if (scenario === 'missing') {
      const home = await makeTempDir();
      return { adapter: createOpenCodeAdapter(), env: { PATH: pathWithout(), HOME: home.dir }, cleanup: home.cleanup };
    }
    const fake = await makeFakeOpenCode(runs[scenario]);
    return {
      adapter: createOpenCodeAdapter(),
      env: fake.env,
      // A paid provider, so a missing credential shows up in health.
      config: { opencodeModel: scenario === 'unauthenticated' ? 'anthropic/claude-sonnet-4-5' : 'mock/mock-model' },
      cleanup: fake.cleanup,
    };
  },
});
