import { describe, expect, it } from '@jest/globals';
import { InvalidRequestError } from './errors.js';
import { validateChatRequest } from './request.js';

const user = { role: 'user', content: 'hi' };

describe('validateChatRequest', () => {
  it('accepts a conversation and returns it normalised for adapters', async () => {
    const req = { messages: [{ role: 'system', content: 's' }, user], model: 'm', maxTokens: 5, temperature: 0.5 };
    const valid = await validateChatRequest(req);
    expect(valid).toMatchObject({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 's' }] },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      original: req.messages,
      model: 'm',
      maxTokens: 5,
      temperature: 0.5,
      additionalDirs: [],
      fork: false,
      imageCount: 0,
    });
    expect(await validateChatRequest(valid)).toBe(valid);
  });

  it.each([
    [undefined, 'chat request must be an object'],
    [{}, 'chat request is missing required field "messages"'],
    [{ messages: [] }, 'messages must contain at least 1 item'],
    [{ messages: 'hi' }, 'messages must be an array'],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role must be one of "system", "user", "assistant"'],
    [{ messages: [{ role: 'user' }] }, 'chat request is missing required field "content" in messages.0'],
    [{ messages: [{ role: 'user', content: 3 }] }, 'messages.0.content must be a string or an array of parts'],
    [{ messages: [user], extra: true }, 'chat request has unknown field "extra"'],
    [{ messages: [user], model: '' }, 'model must not be empty'],
    [{ messages: [user], maxTokens: 0 }, 'maxTokens must be >= 1'],
    [{ messages: [user], temperature: 3 }, 'temperature must be <= 2'],
    [{ messages: [{ role: 'assistant', content: 'x' }] }, 'chat request must contain at least one message with role "user"'],
  ])('rejects %j: %s', async (input, message) => {
    let error: unknown;
    try {
      await validateChatRequest(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe(message);
  });
});
