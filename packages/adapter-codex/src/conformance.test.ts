import { afterAll, describe, it } from '@jest/globals';
import { pathWithout } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { createCodexAdapter } from './adapter.js';
import { capture, fakeCodexEnv, REPLAYS, type FakeCodexScript } from './testing/fake-codex.js';

const JSON_ANSWER = { city: 'Paris', sunny: true };
/** The real run's output with its answer swapped for JSON text. */
const jsonReplay = {
  stdout: capture('codex-mock.out').replace('"text":"Hello from mock"', `"text":${JSON.stringify(JSON.stringify(JSON_ANSWER))}`),
  stderr: capture('codex-mock.err'),
};

const scenarios: Partial<Record<ConformanceScenario, FakeCodexScript>> = {
  ok: { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.ok },
  missing: {},
  hang: { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.reconnecting },
  unauthenticated: { version: REPLAYS.version, loginStatus: REPLAYS.notLoggedIn, exec: REPLAYS.unauthorized },
  'rate-limited': { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.usageLimit },
  // Offline Codex reports reconnect notices (activity), then waits forever.
  stall: { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.reconnecting },
  json: { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: jsonReplay },
  // A real workspace-write run: a shell command, then the answer.
  activity: {
    version: REPLAYS.version,
    loginStatus: REPLAYS.loggedInChatGpt,
    exec: { stdout: capture('codex-ww-command.out'), stderr: capture('codex-ww-command.err') },
  },
};

describeConformance({ describe, it, afterAll }, 'codex', {
  expectedText: 'Hello from mock',
  expectedJson: JSON_ANSWER,
  scenarios: Object.keys(scenarios) as ConformanceScenario[],
  async setup(scenario) {
    const fake = await fakeCodexEnv(scenarios[scenario]!);
    if (scenario === 'missing') fake.env.PATH = pathWithout();
    return { adapter: createCodexAdapter(), env: fake.env, config: { codexModel: 'mock-model' }, cleanup: fake.cleanup };
  },
});
