import assert from 'node:assert/strict';
import { assertFields, failureOf, type GroupContext } from '../harness.js';

/** Installed tools are found with their version and models; a missing one is unavailable, never an exception. */
export function discoveryGroup({ runner, stage }: GroupContext): void {
  runner.it('discovers an installed tool with its version and models', async () => {
    const { registry } = await stage('ok');
    const [tool] = await registry.discover();
    assert.equal(tool!.available, true);
    assert.ok(typeof tool!.version === 'string' && tool!.version.length > 0, 'a version');
    for (const m of tool!.models) assert.equal(typeof m, 'string');
    if (tool!.defaultModel !== undefined && tool!.models.length > 0) assert.ok(tool!.models.includes(tool!.defaultModel));
  });

  runner.it('reports a missing tool as unavailable with a reason, without throwing', async () => {
    const { registry } = await stage('missing');
    const [tool] = await registry.discover();
    assert.equal(tool!.available, false);
    assert.equal(typeof tool!.reason, 'string');
    const health = await registry.health(tool!.id);
    assertFields(health, { status: 'unavailable', available: false });
    assert.equal(typeof health.reason, 'string');
    assertFields(await failureOf(registry.connect(tool!.id)), { code: 'tool_unavailable', httpStatus: 503 });
  });
}
