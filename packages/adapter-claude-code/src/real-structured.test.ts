import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ProviderExecutionError, TimeoutError, type ChatRequest } from '@toolbridge/core';
import { type ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, processesWithEnv, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { imageBlocks, startMockAnthropic, structuredScript, userTexts, type MockAnthropicServer } from './testing/index.js';
import { realClaudeRegistry } from './testing/real.js';

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};
/** A 2×2 PNG with four different pixels: any change to its bytes shows. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==';

/** JSON answers and images with the real `claude` 2.1.330 against the mock: what reaches the model. */
describe('real claude: structured output and images', () => {
  let server: MockAnthropicServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  let registry: ToolRegistry;

  beforeAll(async () => {
    server = await startMockAnthropic();
    tmp = await makeTempDir('tb-claude-structured-');
    ({ registry } = await realClaudeRegistry(server.url, path.join(tmp.dir, 'home')));
  });
  afterAll(async () => {
    await registry?.close();
    await server?.close();
    await tmp?.cleanup();
  });

  const ask = (more: Partial<ChatRequest> = {}, timeoutMs = 90_000) =>
    registry.chat('claude-code', { messages: [{ role: 'user', content: 'Describe Ada.' }], ...more }, { timeoutMs });

  it('the schema reaches the model as the StructuredOutput tool; a conforming answer comes back as `object`', async () => {
    server.behavior = { mode: 'script', script: structuredScript([{ name: 'Ada', age: 36 }]) };
    const before = server.messageRequests().length;
    const result = await ask({ responseFormat: { type: 'json_schema', schema } });
    expect(result.object).toEqual({ name: 'Ada', age: 36 });
    expect(JSON.parse(result.message.content)).toEqual({ name: 'Ada', age: 36 });
    const requests = server.messageRequests().slice(before);
    expect(requests).toHaveLength(1);
    const tool = requests[0]!.body.tools!.find((t) => t.name === 'StructuredOutput');
    expect(tool?.input_schema).toEqual(schema);
  }, 120_000);

  it('a non-conforming answer: exactly one repair turn (which shows the errors), then 502 schema_mismatch', async () => {
    server.behavior = { mode: 'script', script: structuredScript([{ name: 'Ada', age: 'thirty-six' }]) };
    const before = server.messageRequests().length;
    const error = await ask({ responseFormat: { type: 'json_schema', schema } }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({
      httpStatus: 502,
      publicDetails: { reason: 'schema_mismatch', errors: [{ path: '/age', message: 'must be integer' }] },
    });
    const requests = server.messageRequests().slice(before);
    // One answer, one repair turn: Claude Code's own schema retries are off (one attempt per run).
    expect(requests).toHaveLength(2);
    expect(userTexts(requests[1]!.body).join('\n')).toMatch(/did not match the required format:\n- \/age: must be integer/);
    // The repair continued the same conversation (the first attempt is in its context).
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('thirty-six');
  }, 180_000);

  it("an image's bytes reach the model intact, as an image block", async () => {
    server.behavior = { mode: 'ok', text: 'Four pixels.' };
    const before = server.messageRequests().length;
    const result = await ask({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
          ],
        },
      ],
    });
    expect(result.message.content).toBe('Four pixels.');
    const [image] = imageBlocks(server.messageRequests()[before]!.body);
    expect(image).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
    expect(Buffer.from(image!.source.data, 'base64').equals(Buffer.from(PNG, 'base64'))).toBe(true);
  }, 120_000);

  /** The call's private temporary directory, as Claude Code told the model where it saved the image. */
  const scratchOf = (before: number) => {
    const text = userTexts(server.messageRequests()[before]!.body).find((t) => t.includes('[Image: source: '))!;
    const file = /\[Image: source: (\S+?)\]/.exec(text)![1]!;
    return file.slice(0, file.indexOf('/tmp/claude-'));
  };
  const withImage = (): Partial<ChatRequest> => ({
    messages: [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And this?' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
        ],
      },
    ],
  });

  // The spawn path's call scratch directory; the warm path removes image copies after each turn (real-warm.test.ts).
  it('temporary files (private TMPDIR, image copies, the system prompt file) are gone after success, failure and timeout', async () => {
    const spawning = await realClaudeRegistry(server.url, path.join(tmp.dir, 'home-spawn'), { options: { warm: false } });
    const home = spawning.home;
    const ask = (more: Partial<ChatRequest>, timeoutMs: number) =>
      spawning.registry.chat('claude-code', { messages: [{ role: 'user', content: 'Describe Ada.' }], ...more }, { timeoutMs });
    for (const behavior of [{ mode: 'ok' }, { mode: 'error', status: 500 }, { mode: 'hang' }] as const) {
      server.behavior = behavior;
      const before = server.messageRequests().length;
      const outcome = await ask(withImage(), behavior.mode === 'hang' ? 8000 : 90_000).then(
        () => 'answered',
        (e) => e,
      );
      if (behavior.mode === 'ok') expect(outcome).toBe('answered');
      if (behavior.mode === 'error') expect(outcome).toBeInstanceOf(ProviderExecutionError);
      if (behavior.mode === 'hang') expect(outcome).toBeInstanceOf(TimeoutError);
      const scratch = scratchOf(before);
      expect(path.basename(scratch)).toMatch(/^toolbridge-claude-code-/);
      expect(existsSync(scratch)).toBe(false);
      expect(await waitForPidsGone(processesWithEnv(`HOME=${home}`), 10_000)).toEqual([]);
    }
    await spawning.registry.close();
  }, 240_000);
});
