import assert from 'node:assert/strict';
import { ACTIVITY_KINDS, ACTIVITY_STATUSES, type Activity, type ChatRequest, type ChatResult } from '@toolbridge/core';
import { assertFields, assertIncludes, CHAT_MS, failureOf, hello, PNG, type GroupContext } from '../harness.js';

/** Scenario `json`: a JSON-Schema request answers the parsed object. */
export function structuredGroup({ runner, stage, options }: GroupContext): void {
  runner.it('answers a JSON-Schema request with the parsed object', async () => {
    const { registry, adapter } = await stage('json');
    const value = options.expectedJson;
    const schema = { type: typeof value === 'object' && value !== null ? 'object' : typeof value };
    const result = await registry.chat(adapter.id, { ...hello, responseFormat: { type: 'json_schema', schema } }, { timeoutMs: CHAT_MS });
    assert.deepEqual(result.object, value);
    assert.deepEqual(JSON.parse(result.message.content), value);
  });
}

/** Images: sent as they are when the tool (and its model) can see, else refused before running. */
export function imagesGroup({ runner, stage }: GroupContext): void {
  runner.it('takes an image when it says it can (vision), else refuses it as invalid_request before running', async () => {
    const { registry, adapter, requests } = await stage('ok');
    const request: ChatRequest = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
          ],
        },
      ],
    };
    const [tool] = await registry.discover();
    if (adapter.features.images && tool!.capabilities.includes('vision')) {
      await registry.chat(adapter.id, request, { timeoutMs: CHAT_MS });
      const image = requests
        .at(-1)!
        .messages.flatMap((m) => m.content)
        .find((p) => p.type === 'image');
      assertFields(image, { type: 'image', mediaType: 'image/png', data: PNG });
    } else {
      assertFields(await failureOf(registry.chat(adapter.id, request)), { code: 'invalid_request', toolId: adapter.id });
      assert.equal(requests.length, 0);
    }
  });
}

/** Scenario `activity`: steps arrive as normalised activity, and the result lists them. */
export function activityGroup({ runner, stage }: GroupContext): void {
  runner.it('reports steps as normalised activity, also in the result', async () => {
    const { registry, adapter } = await stage('activity');
    const activity: Activity[] = [];
    let result: ChatResult | undefined;
    for await (const e of registry.stream(adapter.id, hello, { timeoutMs: CHAT_MS })) {
      if (e.type === 'activity') activity.push(e.activity);
      if (e.type === 'result') result = e.result;
    }
    assert.ok(activity.length > 0, 'at least one step');
    for (const a of activity) {
      assertIncludes(ACTIVITY_KINDS, a.kind, 'activity kinds');
      assertIncludes(ACTIVITY_STATUSES, a.status, 'activity statuses');
      assert.equal(typeof a.id, 'string');
      assert.equal(typeof a.title, 'string');
    }
    assert.ok((result?.activities?.length ?? 0) > 0, 'the result lists the steps');
  });
}
