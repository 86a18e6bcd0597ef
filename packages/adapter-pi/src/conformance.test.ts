import { afterAll, describe, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, MOCK_OK, pathWithout, startMockOpenAIServer, type MockBehaviour } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { createPiAdapter } from './index.js';
import { mockModels, realPiEnv, SLOW } from './testing/real-pi.js';

/**
 * The shared suite over the real `pi` (warm, `--mode rpc`) against the test kit's chat-completions
 * mock. Not staged: `unauthenticated` (Pi hides a model whose provider has no key, so a logged-out
 * chat ends "model not found" before any request; the 401 of a provider is covered in
 * real-pi.test.ts) and `stall` (the mock cannot send half an answer and hang).
 */
const behaviours: Partial<Record<ConformanceScenario, MockBehaviour>> = {
  ok: MOCK_OK,
  hang: { kind: 'hang' },
  'rate-limited': { kind: 'error', status: 429, message: 'Rate limit reached', type: 'rate_limit_error' },
  json: { kind: 'steps', steps: [{ text: JSON.stringify({ city: 'Paris' }) }] },
  activity: { kind: 'steps', steps: [{ calls: [{ name: 'ls', args: { path: '.' } }] }, { text: 'Hello from mock' }] },
};

describeConformance({ describe, it, afterAll }, 'pi', {
  expectedText: 'Hello from mock',
  expectedJson: { city: 'Paris' },
  scenarios: ['missing', ...(Object.keys(behaviours) as ConformanceScenario[])],
  async setup(scenario) {
    const home = await makeTempDir('toolbridge-pi-conf-');
    if (scenario === 'missing') {
      return { adapter: createPiAdapter(), env: { PATH: pathWithout(), HOME: home.dir }, cleanup: home.cleanup };
    }
    const mock = await startMockOpenAIServer(behaviours[scenario]);
    const userDir = path.join(home.dir, '.pi', 'agent');
    await mkdir(userDir, { recursive: true });
    await writeFile(path.join(userDir, 'models.json'), mockModels(mock.baseURL));
    return {
      adapter: createPiAdapter({ versionTimeoutMs: SLOW }),
      env: realPiEnv(home.dir),
      config: { piModel: 'mock/mock-model' },
      async cleanup() {
        await mock.close();
        await home.cleanup();
      },
    };
  },
});
