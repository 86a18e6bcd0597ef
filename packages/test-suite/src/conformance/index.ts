import assert from 'node:assert/strict';
import { activityGroup, imagesGroup, structuredGroup } from './groups/answers.js';
import { cancellationGroup, processesGroup } from './groups/cancellation.js';
import { chatGroup } from './groups/chat.js';
import { contractGroup } from './groups/contract.js';
import { discoveryGroup } from './groups/discovery.js';
import { authGroup, rateLimitGroup } from './groups/failures.js';
import { requestsGroup } from './groups/requests.js';
import { sessionsGroup } from './groups/sessions.js';
import { stager, type GroupContext } from './harness.js';
import type { TestRunner } from './runner.js';
import type { ConformanceOptions, ConformanceScenario } from './types.js';

export { nodeTestRunner, type TestRunner } from './runner.js';
export type { ConformanceOptions, ConformanceScenario, ConformanceSetup } from './types.js';

/** The behaviour groups, each with the scenario it needs (`undefined`: every adapter runs it). */
const GROUPS: ReadonlyArray<{ title: string; needs?: ConformanceScenario; define(ctx: GroupContext): void }> = [
  { title: 'contract', define: contractGroup },
  { title: 'discovery', define: discoveryGroup },
  { title: 'chat', define: chatGroup },
  { title: 'requests', define: requestsGroup },
  { title: 'cancellation', needs: 'hang', define: cancellationGroup },
  { title: 'processes', needs: 'stall', define: processesGroup },
  { title: 'auth', needs: 'unauthenticated', define: authGroup },
  { title: 'rate limits', needs: 'rate-limited', define: rateLimitGroup },
  { title: 'sessions', define: sessionsGroup },
  { title: 'structured output', needs: 'json', define: structuredGroup },
  { title: 'images', define: imagesGroup },
  { title: 'activity', needs: 'activity', define: activityGroup },
];

/**
 * The shared conformance suite (keyv-style): every adapter package runs it from its own tests, so
 * all tools behave alike through the registry. The groups an adapter opts into follow from the
 * scenarios its fakes can stage; the runner's functions are passed in, so it runs under jest
 * (`{ describe, it, afterAll }`), node:test (`nodeTestRunner(test)`) or vitest.
 */
export function describeConformance(runner: TestRunner, name: string, options: ConformanceOptions): void {
  const { stage, cleanup } = stager(options);
  const can = (s: ConformanceScenario) => options.scenarios.includes(s);
  runner.describe(`${name} conformance`, () => {
    runner.afterAll(cleanup);
    runner.it('stages the required scenarios', async () => {
      assert.ok(can('ok') && can('missing'), 'the ok and missing scenarios are required');
    });
    for (const group of GROUPS) {
      if (group.needs && !can(group.needs)) continue;
      runner.describe(group.title, () => group.define({ runner, options, stage }));
    }
  });
}
