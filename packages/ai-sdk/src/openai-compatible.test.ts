import { afterEach, describe, expect, it } from '@jest/globals';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startServer, type RunningBridge } from '@toolbridge/bridge';
import { makeFakeMachine, type FakeMachine } from 'toolbridge/testing';
import { generateText, streamText } from 'ai';
import './testing/fixture.js';

/**
 * The README's other way in: the bridge's OpenAI-compatible `/v1` from `@ai-sdk/openai-compatible`
 * (for apps that do not run the library in process), exactly as documented.
 */
describe("the bridge's /v1 from @ai-sdk/openai-compatible (real ai 7)", () => {
  const open: Array<{ bridge: RunningBridge; machine: FakeMachine }> = [];
  afterEach(async () => {
    for (const { bridge, machine } of open.splice(0)) {
      await bridge.close();
      await machine.cleanup();
    }
  });
  const start = async (token?: string) => {
    const machine = await makeFakeMachine();
    const bridge = await startServer({ port: 0, token, logger: false, toolbridgeOptions: { env: machine.env } });
    open.push({ bridge, machine });
    return { bridge, machine };
  };

  it('generateText and streamText with the same model ids; the bridge token is the API key', async () => {
    const { bridge, machine } = await start('s3cret-token');
    const toolbridge = createOpenAICompatible({ name: 'toolbridge', baseURL: `${bridge.url}/v1`, apiKey: 's3cret-token' });
    const r = await generateText({ model: toolbridge('ollama/qwen3:14b'), prompt: 'Say hello' });
    expect(r.text).toBe('Hello from ollama');
    expect(machine.ollama.chats.at(-1)).toMatchObject({ model: 'qwen3:14b' });

    const s = streamText({ model: toolbridge('codex'), prompt: 'Say hello' });
    expect(await s.text).toBe('Hello from mock');

    const denied = createOpenAICompatible({ name: 'toolbridge', baseURL: `${bridge.url}/v1`, apiKey: 'wrong' });
    const error = await generateText({ model: denied('ollama'), prompt: 'x', maxRetries: 0 }).catch((e) => e);
    expect(error).toMatchObject({ name: 'AI_APICallError', statusCode: 401 });
  });
});
