import assert from 'node:assert/strict';
import { AbortedError, TimeoutError } from '@toolbridge/core';
import { waitForPidsGone } from '../../processes.js';
import { CHAT_MS, failureOf, hello, type GroupContext } from '../harness.js';

/** Scenario `hang`: a deadline or the caller's abort ends the chat and every process of it. */
export function cancellationGroup({ runner, stage }: GroupContext): void {
  runner.it('times out a tool that never answers', async () => {
    const { registry, adapter, processes } = await stage('hang');
    const started = Date.now();
    const error = await failureOf(registry.chat(adapter.id, hello, { timeoutMs: 700 }));
    assert.ok(TimeoutError.isInstance(error));
    assert.equal((error as TimeoutError).httpStatus, 504);
    assert.ok(Date.now() - started < 10_000, 'within 10 s');
    assert.deepEqual(await waitForPidsGone(processes(), 5000), []);
  });

  runner.it('stops when the caller aborts', async () => {
    const { registry, adapter, processes } = await stage('hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    assert.ok(AbortedError.isInstance(await failureOf(registry.chat(adapter.id, hello, { signal: controller.signal }))));
    assert.deepEqual(await waitForPidsGone(processes(), 5000), []);
  });
}

/** Scenario `stall`: a consumer that leaves a stream early leaves nothing running. */
export function processesGroup({ runner, stage }: GroupContext): void {
  runner.it('a consumer that breaks out of a stream early leaves nothing running', async () => {
    const { registry, adapter, processes } = await stage('stall');
    let before: number[] = [];
    for await (const _event of registry.stream(adapter.id, hello, { timeoutMs: CHAT_MS })) {
      before = processes();
      break;
    }
    if (adapter.type === 'agent') assert.ok(before.length > 0, 'the agent ran a process');
    assert.deepEqual(await waitForPidsGone([...before, ...processes()], 5000), []);
    assert.equal(registry.load(adapter.id).active, 0);
  });
}
