import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { createEchoAgentAdapter, echoAgentScript } from '@toolbridge/adapter-kit/testing';
import { makeTempDir, pathWith, writeFakeBin } from '@toolbridge/test-suite/kit';
import { defaultAdapters } from 'toolbridge';
import { startTestBridge, type TestBridge } from './testing/harness.js';

// The kit's example adapter for a fifth tool, plugged in beside the four: the bridge, /v1 and the
// dashboard's data (discovery, health, config schema grouped by tool) take it with no change to them.
let bridge: TestBridge;
let tmp: Awaited<ReturnType<typeof makeTempDir>>;

beforeAll(async () => {
  tmp = await makeTempDir('toolbridge-fifth-');
  const bin = path.join(tmp.dir, 'bin');
  await writeFakeBin(bin, 'echo-agent', echoAgentScript('ok'));
  bridge = await startTestBridge([...defaultAdapters(), createEchoAgentAdapter()], {
    env: { PATH: pathWith(bin), HOME: path.join(tmp.dir, 'home') },
  });
});
afterAll(async () => {
  await bridge.close();
  await tmp.cleanup();
});

describe('a fifth tool through the bridge', () => {
  it('is discovered, healthy, configurable under its own group, reachable natively and through /v1', async () => {
    const { tools } = (await (await bridge.request('/discover')).json()) as { tools: Array<{ id: string; available: boolean }> };
    expect(tools.find((t) => t.id === 'echo-agent')).toMatchObject({ available: true });
    const health = (await (await bridge.request('/health/echo-agent')).json()) as { status: string };
    expect(health.status).toBe('healthy');
    const doc = (await (await bridge.request('/openapi.json')).json()) as {
      components: { schemas: { Config: { properties: Record<string, unknown> } } };
    };
    expect(doc.components.schemas.Config.properties.echoAgentModel).toMatchObject({ 'x-toolbridge-group': 'echo-agent' });
    const chat = (await (
      await bridge.request('/chat/echo-agent', { method: 'POST', json: { messages: [{ role: 'user', content: 'five' }] } })
    ).json()) as { result: { message: { content: string } } };
    expect(chat.result.message.content).toBe('Echo: five');
    const models = (await (await bridge.request('/v1/models')).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toContain('echo-agent');
  });
});
