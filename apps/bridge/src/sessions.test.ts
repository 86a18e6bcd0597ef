import { afterEach, describe, expect, it } from '@jest/globals';
import { scriptedAdapter, waitFor } from '@toolbridge/test-suite/kit';
import { textOf } from '@toolbridge/core/runtime';
import { readSse, testBridges, type TestBridge } from './testing/harness.js';

const bridge = testBridges(afterEach);

const echo = (id: string, more = {}) =>
  scriptedAdapter(id, { ...more, script: (request) => ({ deltas: [`${id}: ${request.messages.map((m) => textOf(m)).join(' / ')}`] }) });
const post = (b: TestBridge, path: string, json: unknown) => b.request(path, { method: 'POST', json });
const ask = (content: string, more: object = {}) => ({ messages: [{ role: 'user', content }], ...more });

describe('sessions over HTTP', () => {
  it('every answer carries sessionId; sending it back continues the conversation; GET and DELETE /sessions', async () => {
    const b = await bridge([echo('alpha'), echo('beta')]);
    const first = (await (await post(b, '/chat/alpha', ask('TOP-SECRET remember 7'))).json()) as { sessionId: string };
    expect(first.sessionId).toMatch(/^tbs_/);
    const second = (await (await post(b, '/chat/alpha', ask('which number?', { sessionId: first.sessionId }))).json()) as {
      result: { message: { content: string } };
    };
    expect(second.result.message.content).toBe('alpha: TOP-SECRET remember 7 / alpha: TOP-SECRET remember 7 / which number?');
    // A fallback chat with the session tries the session's own tool first.
    const third = (await (
      await post(b, '/chat', { providers: ['beta', 'alpha'], ...ask('and now?', { sessionId: first.sessionId }) })
    ).json()) as { toolId: string; sessionId: string };
    expect(third).toMatchObject({ toolId: 'alpha', sessionId: first.sessionId });

    const list = (await (await b.request('/sessions')).json()) as {
      sessions: Array<{ id: string; turns: number; title: string; toolId: string }>;
    };
    expect(list.sessions).toEqual([
      expect.objectContaining({ id: first.sessionId, turns: 3, toolId: 'alpha', title: 'TOP-SECRET remember 7' }),
    ]);
    const detail = (await (await b.request(`/sessions/${first.sessionId}`)).json()) as {
      messages: Array<{ role: string; toolId?: string }>;
    };
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);

    expect((await b.request(`/sessions/${first.sessionId}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await b.request(`/sessions/${first.sessionId}`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
    const stale = await post(b, '/chat/alpha', ask('hello?', { sessionId: first.sessionId }));
    expect(stale.status).toBe(404);
    // Nothing of the conversation reaches the request log.
    expect(JSON.stringify(b.logs)).not.toContain('TOP-SECRET');
  });

  it('a session busy with a turn answers 409 session_busy to a second one', async () => {
    const slow = scriptedAdapter('slow', { script: [{ deltas: ['one'] }, { deltas: ['two'], hold: true }] });
    const b = await bridge([slow]);
    const { sessionId } = (await (await post(b, '/chat/slow', ask('first'))).json()) as { sessionId: string };
    const running = post(b, '/chat/slow', ask('second', { sessionId }));
    await waitFor(() => slow.calls.length === 2, 3000, 'the second turn');
    const clash = await post(b, '/chat/slow', ask('third', { sessionId }));
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as { error: { code: string; retryable: boolean } }).error).toMatchObject({
      code: 'session_busy',
      retryable: true,
    });
    slow.finishOne();
    expect((await running).status).toBe(200);
  });

  it('streams: the done event carries sessionId and activity comes as activity events', async () => {
    const tool = scriptedAdapter('alpha', { script: [{ activity: 'looking around', deltas: ['hi'] }] });
    const b = await bridge([tool]);
    const events = await readSse(await post(b, '/chat/alpha', { ...ask('hello'), stream: true }));
    expect(events.map((e) => e.event)).toEqual(['activity', 'delta', 'done']);
    expect(events[0]!.data).toMatchObject({ activity: { kind: 'reasoning', status: 'completed', text: 'looking around' } });
    expect(events[2]!.data).toMatchObject({
      sessionId: expect.stringMatching(/^tbs_/),
      activities: [expect.objectContaining({ kind: 'reasoning' })],
    });
    const plain = (await (await post(b, '/chat/alpha', ask('again'))).json()) as { activities: unknown[] };
    expect(plain.activities).toHaveLength(1);
  });

  it('session endpoints follow the token rule', async () => {
    const b = await bridge([echo('alpha')], { token: 'sekret' });
    expect((await b.request('/sessions')).status).toBe(401);
    expect((await b.request('/sessions', { headers: { authorization: 'Bearer sekret' } })).status).toBe(200);
    expect((await b.request('/sessions/tbs_whatever12', { method: 'DELETE' })).status).toBe(401);
  });
});

describe('permission levels and files over HTTP', () => {
  it('refuses permissions "full" without a token or --allow-full-permissions, before any tool runs', async () => {
    const tool = echo('alpha');
    const b = await bridge([tool]);
    for (const path of ['/chat/alpha', '/chat']) {
      const res = await post(b, path, {
        ...ask('do anything'),
        permissions: 'full',
        ...(path === '/chat' ? { providers: ['alpha'] } : {}),
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/--allow-full-permissions/);
    }
    expect(tool.calls).toHaveLength(0);
    expect((await post(b, '/chat/alpha', { ...ask('read only'), permissions: 'read-only' })).status).toBe(200);
    expect(tool.requests.at(-1)!.permissions).toBe('read-only');

    const allowed = await bridge([echo('beta')], { allowFullPermissions: true });
    expect((await post(allowed, '/chat/beta', { ...ask('go'), permissions: 'full' })).status).toBe(200);
    const withToken = await bridge([echo('gamma')], { token: 't0k' });
    expect(
      (
        await withToken.request('/chat/gamma', {
          method: 'POST',
          json: { ...ask('go'), permissions: 'full' },
          headers: { authorization: 'Bearer t0k' },
        })
      ).status,
    ).toBe(200);
  });

  it('refuses library-only image paths and relative working directories over HTTP', async () => {
    const tool = scriptedAdapter('eye', { features: { images: true }, detectedCapabilities: ['vision'] });
    const b = await bridge([tool]);
    const byPath = await post(b, '/chat/eye', { messages: [{ role: 'user', content: [{ type: 'image', path: '/etc/hostname' }] }] });
    expect(byPath.status).toBe(400);
    expect(((await byPath.json()) as { error: { message: string } }).error.message).toMatch(/"path" images are for the library only/);
    const relative = await post(b, '/chat/eye', { ...ask('hi'), cwd: 'some/dir' });
    expect(relative.status).toBe(400);
    expect(((await relative.json()) as { error: { message: string } }).error.message).toMatch(/cwd must be an absolute path/);
    expect(tool.calls).toHaveLength(0);
  });
});
