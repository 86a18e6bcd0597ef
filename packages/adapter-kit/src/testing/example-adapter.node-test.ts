// The kit's example adapter through the conformance suite under node:test rather than jest: the
// suite takes its runner's functions, so a third-party adapter can use either. Run by
// example-adapter.test.ts as `node --conditions toolbridge-source --import tsx --test <this file>`.
import test from 'node:test';
import path from 'node:path';
import { makeTempDir, pathWith, pathWithout, writeFakeBin } from '@toolbridge/test-suite/kit';
import { describeConformance, nodeTestRunner } from '@toolbridge/test-suite';
import { createEchoAgentAdapter, echoAgentScript } from './example-adapter.js';

describeConformance(nodeTestRunner(test), 'echo-agent under node:test', {
  expectedText: 'Echo: Say hello',
  scenarios: ['ok', 'missing', 'hang', 'unauthenticated', 'rate-limited', 'activity'],
  async setup(scenario) {
    const tmp = await makeTempDir('toolbridge-echo-node-test-');
    const bin = path.join(tmp.dir, 'bin');
    await writeFakeBin(bin, 'echo-agent', echoAgentScript(scenario === 'activity' ? 'ok' : scenario));
    const env = { PATH: scenario === 'missing' ? pathWithout() : pathWith(bin), HOME: path.join(tmp.dir, 'home') };
    return { adapter: createEchoAgentAdapter(), env, cleanup: tmp.cleanup };
  },
});
