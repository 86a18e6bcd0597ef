import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { ProviderExecutionError, TimeoutError } from '@toolbridge/core';
import { waitFor } from '@toolbridge/test-suite/kit';
import { startRealCodex, transcriptOf, TRANSPORTS, type RealCodex } from './testing/real-codex.js';

/** JSON-Schema answers and images with the real `codex` against the mock. */

/** Strict-compatible (what OpenAI's strict structured outputs take): Codex sends it as the request's format. */
const STRICT = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};
const ask = (extra: Record<string, unknown>) => ({ messages: [{ role: 'user' as const, content: 'Describe Paris' }], ...extra });
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe.each(TRANSPORTS)('real codex 0.169.0: structured output and images (%s)', (transport) => {
  let codex: RealCodex;
  beforeAll(async () => {
    codex = await startRealCodex({ warm: transport === 'warm' });
  });
  afterAll(async () => {
    await codex?.close();
  });
  const scratchGone = () => codex.scratchDirs.filter((d) => existsSync(d));
  // exec takes the schema and images as files; app-server takes them in the request, so it needs none.
  const filesPerCall = transport === 'spawn' ? 1 : 0;

  it('sends the schema natively (strict json_schema) and returns the conforming answer as object; the schema file is gone after', async () => {
    const { mock, registry } = codex;
    mock.queue({ kind: 'reply', text: '{"city":"Paris","population":2100000}' });
    const sent = mock.modelRequests().length;
    const result = await registry.chat('codex', ask({ responseFormat: { type: 'json_schema', schema: STRICT } }), { timeoutMs: 60_000 });
    expect(result.object).toEqual({ city: 'Paris', population: 2100000 });
    expect(result.metadata).toMatchObject({ structuredOutput: 'native', transport });
    const body = mock.modelRequests()[sent]!;
    expect(body.text?.format).toEqual({ type: 'json_schema', strict: true, schema: STRICT, name: 'codex_output_schema' });
    expect(codex.scratchDirs.length).toBe(filesPerCall);
    expect(scratchGone()).toEqual([]);
  }, 120_000);

  it('a non-conforming answer gets exactly one repair turn (in the same Codex thread, schema again), then 502 schema_mismatch', async () => {
    const { mock, registry } = codex;
    mock.queue({ kind: 'reply', text: '{"city":"Paris"}' }, { kind: 'reply', text: '{"city":"Paris","population":"many"}' });
    const sent = mock.modelRequests().length;
    const error = await registry
      .chat('codex', ask({ responseFormat: { type: 'json_schema', schema: STRICT } }), { timeoutMs: 60_000 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ httpStatus: 502, publicDetails: { reason: 'schema_mismatch' } });
    const bodies = mock.modelRequests().slice(sent);
    expect(bodies).toHaveLength(2);
    const repair = transcriptOf(bodies[1]!);
    // The repair continues the thread: the first answer is in its context, then the errors.
    expect(repair.some((m) => m === 'assistant: {"city":"Paris"}')).toBe(true);
    expect(repair.at(-1)).toMatch(/^user: Your previous answer did not match/);
    expect(bodies[1]!.text?.format?.schema).toEqual(STRICT);
    expect(scratchGone()).toEqual([]);
  }, 120_000);

  it('a schema OpenAI’s strict mode would refuse is asked for in words, and still checked', async () => {
    const { mock, registry } = codex;
    const loose = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    mock.queue({ kind: 'reply', text: '{"city":"Paris"}' });
    const sent = mock.modelRequests().length;
    const result = await registry.chat('codex', ask({ responseFormat: { type: 'json_schema', schema: loose } }), { timeoutMs: 60_000 });
    expect(result).toMatchObject({ object: { city: 'Paris' }, metadata: { structuredOutput: 'prompt' } });
    const body = mock.modelRequests()[sent]!;
    expect(body.text?.format).toBeUndefined();
    expect(transcriptOf(body).at(-1)).toContain(JSON.stringify(loose));
  }, 120_000);

  it('the image’s bytes reach the model intact, and its file is gone after the call', async () => {
    const { mock, registry } = codex;
    mock.queue({ kind: 'reply', text: 'A single pixel.' });
    const sent = mock.modelRequests().length;
    const dirs = codex.scratchDirs.length;
    const result = await registry.chat(
      'codex',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', mediaType: 'image/png', data: PNG },
            ],
          },
        ],
      },
      { timeoutMs: 60_000 },
    );
    expect(result.message.content).toBe('A single pixel.');
    const body = mock.modelRequests()[sent]!;
    const user = body.input.filter((i) => i.role === 'user').at(-1)!;
    expect(user.content!.find((c) => c.type === 'input_image')!.image_url).toBe(`data:image/png;base64,${PNG}`);
    expect(codex.scratchDirs.length).toBe(dirs + filesPerCall);
    expect(scratchGone()).toEqual([]);
  }, 120_000);

  it('temporary files are gone after a failure and after a timeout too, with no codex process left', async () => {
    const { mock, registry } = codex;
    const withImage = ask({
      responseFormat: { type: 'json_schema', schema: STRICT },
      messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: PNG }] }],
    });
    mock.queue({ kind: 'status', status: 500, body: { error: { message: 'boom' } } });
    const dirs = codex.scratchDirs.length;
    expect(await registry.chat('codex', withImage, { timeoutMs: 60_000 }).catch((e) => e)).toBeInstanceOf(ProviderExecutionError);
    mock.queue({ kind: 'hang' });
    expect(await registry.chat('codex', withImage, { timeoutMs: 3000 }).catch((e) => e)).toBeInstanceOf(TimeoutError);
    expect(codex.scratchDirs.length).toBe(dirs + 2 * filesPerCall);
    expect(scratchGone()).toEqual([]);
    if (transport === 'spawn') await waitFor(() => codex.left().length === 0, 10_000, 'codex processes to exit');
  }, 120_000);
});
