import { afterAll, describe, it, jest } from '@jest/globals';
import { pathWithout } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { createQwenCodeAdapter } from './adapter.js';
import { HELLO, startMockQwenServer, type MockQwenServer, type QwenMockStep } from './testing/mock-openai.js';
import { realQwenHome } from './testing/real.js';

/**
 * The shared suite over the real, pinned `qwen` (on the pinned Node 22) against a mock OpenAI
 * server. No `rate-limited`: Qwen Code retries a 429 seven times with backoff before it answers
 * (over a minute here); its recorded 429 is classified in failures.test.ts.
 */
// A cold qwen run takes 5-35 s on a loaded two-core machine: more than jest's default 30 s per test.
jest.setTimeout(240_000);

const mocks: MockQwenServer[] = [];
afterAll(async () => {
  for (const m of mocks) await m.close();
});

const steps: Partial<Record<ConformanceScenario, QwenMockStep[]>> = {
  ok: [],
  missing: [],
  hang: [{ kind: 'hang' }],
  stall: [{ kind: 'stall', chunk: 'Hello ' }],
  unauthenticated: [{ kind: 'error', status: 401, message: 'Incorrect API key provided' }],
  json: [{ kind: 'call', name: 'structured_output', args: { answer: 42 } }],
  activity: [{ kind: 'call', name: 'read_file', args: { absolute_path: '/etc/hostname' } }],
};

describeConformance({ describe, it, afterAll }, 'qwen-code', {
  expectedText: 'Hello from mock',
  expectedJson: { answer: 42 },
  scenarios: Object.keys(steps) as ConformanceScenario[],
  async setup(scenario) {
    const mock = await startMockQwenServer();
    mocks.push(mock);
    mock.fallback = scenario === 'hang' || scenario === 'stall' ? steps[scenario]![0]! : HELLO;
    mock.queue = [...steps[scenario]!];
    const real = await realQwenHome(mock.baseURL);
    // Logged out: no key anywhere (health says so); the chat's 401 is the provider refusing it.
    if (scenario === 'unauthenticated') real.env.OPENAI_API_KEY = '';
    if (scenario === 'missing') real.env.PATH = pathWithout();
    return { adapter: createQwenCodeAdapter({ warm: false }), env: real.env, cleanup: real.cleanup };
  },
});
