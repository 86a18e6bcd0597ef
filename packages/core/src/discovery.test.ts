import { describe, expect, it } from '@jest/globals';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';
import type { DetectResult } from './adapter.js';
import type { ChatRequest } from './types.js';
import { createRegistry } from './registry.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const withImage: ChatRequest = {
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    },
  ],
};

/** A tool whose model listing (which also tells which models take images) may time out. */
function listingTool() {
  const good: DetectResult = { available: true, models: ['m/vision'], defaultModel: 'm/vision', capabilities: ['vision'] };
  const failed: DetectResult = { available: true, models: [], unknown: ['models', 'defaultModel', 'capabilities'] };
  let next = good;
  const base = scriptedAdapter('lister', { features: { images: true } });
  const tool = { ...base, detect: async () => next };
  const registry = createRegistry({ adapters: [tool] });
  return { registry, listing: (ok: boolean) => (next = ok ? good : failed) };
}

describe('a failed probe is "unknown", never "no"', () => {
  it('keeps the last good answer of each field a probe could not fill', async () => {
    const { registry, listing } = listingTool();
    expect((await registry.discover({ refresh: true }))[0]).toMatchObject({ capabilities: expect.arrayContaining(['vision']) });
    listing(false);
    const tool = (await registry.discover({ refresh: true }))[0]!;
    expect(tool).toMatchObject({ models: ['m/vision'], defaultModel: 'm/vision', capabilities: expect.arrayContaining(['vision']) });
    expect(tool.unknown).toBeUndefined();
    expect((await registry.chat('lister', withImage)).message.content).toBeTruthy();
    await registry.close();
  });

  it('with no good answer yet, reports the fields unknown and lets a chat with an image try', async () => {
    const { registry, listing } = listingTool();
    listing(false);
    const tool = (await registry.discover({ refresh: true }))[0]!;
    expect(tool.unknown).toEqual(['models', 'defaultModel', 'capabilities']);
    expect(tool.capabilities).not.toContain('vision');
    expect((await registry.chat('lister', withImage)).message.content).toBeTruthy();
    await registry.close();
  });
});
