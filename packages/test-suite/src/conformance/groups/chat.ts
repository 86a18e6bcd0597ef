import assert from 'node:assert/strict';
import type { StreamEvent } from '@toolbridge/core';
import { CHAT_MS, hello, type GroupContext } from '../harness.js';

/** A plain chat and stream: an assistant message, integer usage, a session; deltas that add up. */
export function chatGroup({ runner, stage, options }: GroupContext): void {
  runner.it('chats: an assistant message, integer usage, a session', async () => {
    const { registry, adapter } = await stage('ok');
    const result = await (await registry.connect(adapter.id)).chat(hello, { timeoutMs: CHAT_MS });
    assert.deepEqual(result.message, { role: 'assistant', content: options.expectedText });
    for (const v of Object.values(result.usage)) assert.ok(Number.isInteger(v), `usage ${v} is an integer`);
    assert.equal(result.metadata.toolId, adapter.id);
    assert.match(result.sessionId ?? '', /^tbs_/);
  });

  runner.it('streams deltas that add up to the final result', async () => {
    const { registry, adapter } = await stage('ok');
    const events: StreamEvent[] = [];
    for await (const e of (await registry.connect(adapter.id)).stream(hello, { timeoutMs: CHAT_MS })) events.push(e);
    assert.equal(events.at(-1)!.type, 'result');
    assert.equal(events.filter((e) => e.type === 'result').length, 1);
    assert.equal(events.map((e) => (e.type === 'delta' ? e.text : '')).join(''), options.expectedText);
  });
}
