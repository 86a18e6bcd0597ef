import { describe, expect, it } from '@jest/globals';
import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { useProviderFixture } from './testing/fixture.js';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';

const { setup } = useProviderFixture();

/** A real 1×1 PNG (the library checks the bytes against the media type). */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const png = () => new Uint8Array(Buffer.from(PNG_BASE64, 'base64'));

/** An agent that takes images (`features.images`, `vision` in detect), recording what it is handed. */
const seeing = () =>
  scriptedAdapter('seeing', { features: { images: true }, detectedCapabilities: ['vision'], script: [{ deltas: ['A dot.'] }] });

describe('image file parts (real ai 7)', () => {
  it('an image part reaches the tool as a Toolbridge image part: checked, decoded, beside the text', async () => {
    const agent = seeing();
    const { provider } = await setup({ adapters: [agent] });
    const r = await generateText({
      model: provider('seeing'),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image', image: png() },
          ],
        },
      ],
    });
    expect(r.text).toBe('A dot.');
    expect(agent.requests[0]!.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', mediaType: 'image/png', data: PNG_BASE64, bytes: png().length },
        ],
      },
    ]);
  });

  it('a file: URL is read from disk by the library, not downloaded by the AI SDK', async () => {
    const agent = seeing();
    const { provider } = await setup({ adapters: [agent] });
    const dir = await mkdtemp(path.join(tmpdir(), 'tb-ai-sdk-img-'));
    try {
      const file = path.join(dir, 'dot.png');
      await writeFile(file, png());
      await generateText({
        model: provider('seeing'),
        messages: [{ role: 'user', content: [{ type: 'image', image: pathToFileURL(file) }] }],
      });
      expect(agent.requests[0]!.messages[0]!.content).toEqual([{ type: 'image', mediaType: 'image/png', data: PNG_BASE64, bytes: 70 }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a tool that cannot take images: the library’s refusal is an UnsupportedFunctionalityError, and nothing runs', async () => {
    const { provider, machine } = await setup();
    const error = await generateText({
      model: provider('ollama'),
      maxRetries: 0,
      messages: [{ role: 'user', content: [{ type: 'image', image: png() }] }],
    }).catch((e) => e);
    expect(UnsupportedFunctionalityError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ functionality: 'images', message: expect.stringContaining('cannot take images') });
    expect(error.cause).toMatchObject({ code: 'invalid_request', toolId: 'ollama' });
    expect(machine.ollama.chats).toHaveLength(0);
  });

  it('files that are not images are refused before any tool runs', async () => {
    const agent = seeing();
    const { provider } = await setup({ adapters: [agent] });
    const error = await generateText({
      model: provider('seeing'),
      maxRetries: 0,
      messages: [{ role: 'user', content: [{ type: 'file', data: Buffer.from('%PDF-1.4'), mediaType: 'application/pdf' }] }],
    }).catch((e) => e);
    expect(UnsupportedFunctionalityError.isInstance(error)).toBe(true);
    expect(error.message).toContain('application/pdf');
    expect(agent.requests).toHaveLength(0);
  });
});
