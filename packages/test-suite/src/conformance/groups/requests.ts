import assert from 'node:assert/strict';
import { InvalidRequestError } from '@toolbridge/core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertFields, failureOf, hello, type GroupContext } from '../harness.js';

/** Bad requests are refused by core before the tool runs. */
export function requestsGroup({ runner, stage }: GroupContext): void {
  runner.it('rejects an invalid request before running anything', async () => {
    const { registry, adapter, requests } = await stage('ok');
    assert.ok(InvalidRequestError.isInstance(await failureOf(registry.chat(adapter.id, { messages: [] }))));
    const robot = await failureOf(registry.chat(adapter.id, { messages: [{ role: 'robot', content: 'x' }] } as never));
    assertFields(robot, { code: 'invalid_request' });
    assert.equal(requests.length, 0);
  });

  runner.it('rejects a missing working directory as invalid_request naming it, without running anything or doubting the tool', async () => {
    const { registry, adapter, requests } = await stage('ok');
    const gone = path.join(await mkdtemp(path.join(tmpdir(), 'toolbridge-conf-')), 'missing-dir');
    const error = await failureOf(registry.chat(adapter.id, { ...hello, cwd: gone }));
    await rm(path.dirname(gone), { recursive: true, force: true });
    assert.ok(InvalidRequestError.isInstance(error));
    assert.ok((error as Error).message.includes('missing-dir'));
    assert.equal(requests.length, 0);
    assert.equal((await registry.tool(adapter.id)).available, true);
  });
}
