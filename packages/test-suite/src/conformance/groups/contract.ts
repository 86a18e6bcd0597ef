import assert from 'node:assert/strict';
import { AGENT_CAPABILITIES, RUNTIME_CAPABILITIES } from '@toolbridge/core';
import { assertIncludes, type GroupContext } from '../harness.js';

/** Identity, capability flags and config schema: what every adapter declares. */
export function contractGroup({ runner, stage }: GroupContext): void {
  runner.it('declares a valid identity, capability flags and a config schema of its own keys', async () => {
    const { adapter } = await stage('ok');
    assert.match(adapter.id, /^[a-z][a-z0-9-]*$/);
    assert.ok(adapter.name.length > 0);
    assertIncludes(['agent', 'runtime'], adapter.type, 'types');
    // The spec's capabilities of its type, at least; more only as flags (features) or detected (vision).
    for (const c of adapter.type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES)
      assertIncludes(adapter.capabilities, c, 'capabilities');
    assert.equal(typeof adapter.features, 'object');
    const f = adapter.features;
    if (f.sessions) assert.ok(typeof f.sessions.resume === 'boolean' && typeof f.sessions.fork === 'boolean');
    if (f.structuredOutput) assertIncludes(['native', 'prompt'], f.structuredOutput, 'structuredOutput');
    for (const level of f.permissions ?? []) assertIncludes(['read-only', 'workspace-write', 'full'], level, 'permission levels');
    const prefix = adapter.id.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    for (const [key, schema] of Object.entries(adapter.configSchema)) {
      assert.ok(key.startsWith(prefix), `config key ${key} should start with ${prefix}`);
      assertIncludes(['string', 'integer', 'number', 'boolean'], schema.type, 'config types');
    }
    assert.equal(typeof adapter.checkAuth === 'function', typeof adapter.startAuth === 'function');
  });
}
