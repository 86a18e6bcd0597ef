import assert from 'node:assert/strict';
import { CHAT_MS, hello, type GroupContext } from '../harness.js';

/** A second turn continues the session: natively where the tool can, else with the transcript. */
export function sessionsGroup({ runner, stage }: GroupContext): void {
  runner.it('continues a session: same sessionId, and the tool resumes its own session when it can', async () => {
    const { registry, adapter, requests } = await stage('ok');
    const first = await registry.chat(adapter.id, hello, { timeoutMs: CHAT_MS });
    const next = { messages: [{ role: 'user' as const, content: 'And again' }], sessionId: first.sessionId };
    const second = await registry.chat(adapter.id, next, { timeoutMs: CHAT_MS });
    assert.equal(second.sessionId, first.sessionId);
    const sent = requests.at(-1)!;
    if (adapter.features.sessions?.resume && typeof first.metadata.nativeSessionId === 'string') {
      assert.deepEqual(sent.resume, { nativeSessionId: first.metadata.nativeSessionId, fork: false });
      assert.equal(sent.messages.length, 1);
    } else {
      // Without native sessions the tool gets the transcript: the first turn, its answer, the new message.
      assert.equal(sent.resume, undefined);
      assert.ok(sent.messages.length >= 3);
    }
    const detail = await registry.sessions.get(first.sessionId!);
    assert.equal(detail.turns, 2);
    assert.deepEqual(
      detail.messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
  });
}
