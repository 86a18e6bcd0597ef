import { afterEach, describe, expect, it } from '@jest/globals';
import { scriptedAdapter, waitFor } from '@toolbridge/test-suite/kit';
import type { Approval } from 'toolbridge';
import { parseSse, testBridges, type SseEvent, type TestBridge } from './testing/harness.js';

const bridge = testBridges(afterEach);

const post = (b: TestBridge, path: string, json?: unknown, headers: Record<string, string> = {}) =>
  b.request(path, { method: 'POST', headers, ...(json !== undefined ? { json } : {}) });
const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
const npmTest = { kind: 'command' as const, title: 'Run npm test', command: 'npm test', cwd: '/tmp' };

/** Read an SSE response as it arrives, calling `onEvent` for each event (awaited before reading on). */
async function streamSse(res: Response, onEvent: (e: SseEvent) => Promise<void> | void): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const cut = buffer.lastIndexOf('\n\n');
    if (cut < 0) continue;
    const blocks = buffer.slice(0, cut + 2);
    buffer = buffer.slice(cut + 2);
    for (const e of parseSse(blocks)) {
      events.push(e);
      await onEvent(e);
    }
  }
  return events;
}

describe('approvals over HTTP', () => {
  it('streams an approval event, takes the answer at POST /approvals/:id, and records it in the answer', async () => {
    const tool = scriptedAdapter('alpha', { features: { approvals: true }, script: [{ deltas: ['done'], asks: [npmTest] }] });
    const b = await bridge([tool]);
    const res = await post(b, '/chat/alpha', { messages: [{ role: 'user', content: 'run the tests' }], approvals: 'ask', stream: true });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const replies: Array<{ status: number; body: unknown }> = [];
    const events = await streamSse(res, async (e) => {
      if (e.event !== 'approval') return;
      const approval = e.data as Approval;
      const listed = (await (await b.request('/approvals')).json()) as { approvals: Approval[] };
      expect(listed.approvals).toEqual([approval]);
      // A bad body is refused without deciding anything.
      const bad = await post(b, `/approvals/${approval.id}`, { decision: 'yes' });
      replies.push({ status: bad.status, body: await errorCode(bad) });
      const ok = await post(b, `/approvals/${approval.id}`, { decision: 'allow' });
      replies.push({ status: ok.status, body: await ok.json() });
      const again = await post(b, `/approvals/${approval.id}`, { decision: 'deny' });
      replies.push({ status: again.status, body: await errorCode(again) });
    });
    const approval = events.find((e) => e.event === 'approval')!.data as Approval;
    expect(approval).toMatchObject({
      toolId: 'alpha',
      kind: 'command',
      command: 'npm test',
      cwd: '/tmp',
      options: ['allow', 'allow_session', 'deny'],
    });
    expect(replies).toEqual([
      { status: 400, body: 'invalid_request' },
      { status: 200, body: { id: approval.id, decision: 'allow' } },
      { status: 409, body: 'approval_decided' },
    ]);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect((done.data as { result: { metadata: Record<string, unknown> } }).result.metadata.approvals).toEqual([
      { id: approval.id, kind: 'command', title: 'Run npm test', decision: 'allow', decidedBy: 'caller' },
    ]);
    expect(tool.calls[0]!.answers).toEqual([{ allow: true }]);
    expect((await post(b, '/approvals/apr_unknown', { decision: 'allow' })).status).toBe(404);
    expect(await errorCode(await post(b, '/approvals/apr_unknown', { decision: 'allow' }))).toBe('approval_not_found');
  });

  it('lets a non-streaming fallback chat be answered through GET and POST /approvals', async () => {
    const tool = scriptedAdapter('alpha', { features: { approvals: true }, script: [{ deltas: ['done'], asks: [npmTest] }] });
    const b = await bridge([tool]);
    const answer = post(b, '/chat', { providers: ['alpha'], messages: [{ role: 'user', content: 'go' }], approvals: 'ask' });
    let pending: Approval[] = [];
    await waitFor(async () => {
      pending = ((await (await b.request('/approvals')).json()) as { approvals: Approval[] }).approvals;
      return pending.length === 1;
    });
    const decided = await post(b, `/approvals/${pending[0]!.id}`, { decision: 'deny', message: 'not on this machine' });
    expect(decided.status).toBe(200);
    const body = (await (await answer).json()) as { result: { metadata: { approvals: unknown[] } } };
    expect(body.result.metadata.approvals).toMatchObject([{ decision: 'deny', decidedBy: 'caller' }]);
    expect(tool.calls[0]!.answers).toEqual([{ allow: false, message: 'not on this machine' }]);
  });

  it('keeps the routes behind the token and the Origin check', async () => {
    const token = 'tb_0123456789abcdef';
    const b = await bridge([scriptedAdapter('alpha')], { token });
    for (const [path, method] of [
      ['/approvals', 'GET'],
      ['/approvals/apr_x', 'POST'],
      ['/sessions/tbs_abcdefgh/interrupt', 'POST'],
    ] as const) {
      const res = await b.request(path, { method, ...(method === 'POST' ? { json: { decision: 'allow' } } : {}) });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      const foreign = await b.request(path, {
        method,
        headers: { authorization: `Bearer ${token}`, origin: 'https://evil.example' },
        ...(method === 'POST' ? { json: { decision: 'allow' } } : {}),
      });
      expect({ path, status: foreign.status }).toEqual({ path, status: 403 });
    }
    const ok = await b.request('/approvals', { headers: { authorization: `Bearer ${token}` } });
    expect(await ok.json()).toEqual({ approvals: [] });
  });
});

describe('POST /sessions/:sessionId/interrupt', () => {
  it('ends the running turn with the text so far (202); 404 unknown, 409 session_idle; the session goes on', async () => {
    const tool = scriptedAdapter('alpha', { script: [{ deltas: ['one'] }, { deltas: ['so ', 'far'], hang: true }, { deltas: ['next'] }] });
    const b = await bridge([tool]);
    const unknown = await post(b, '/sessions/tbs_doesnotexist/interrupt');
    expect([unknown.status, await errorCode(unknown)]).toEqual([404, 'session_not_found']);
    const first = (await (await post(b, '/chat/alpha', { messages: [{ role: 'user', content: 'hi' }] })).json()) as { sessionId: string };
    const idle = await post(b, `/sessions/${first.sessionId}/interrupt`);
    expect([idle.status, await errorCode(idle)]).toEqual([409, 'session_idle']);

    const res = await post(b, '/chat/alpha', { messages: [{ role: 'user', content: 'more' }], sessionId: first.sessionId, stream: true });
    let interrupted: { status: number; body: unknown } | undefined;
    const events = await streamSse(res, async (e) => {
      if (e.event === 'delta' && (e.data as { text: string }).text === 'far') {
        const r = await post(b, `/sessions/${first.sessionId}/interrupt`);
        interrupted = { status: r.status, body: await r.json() };
      }
    });
    expect(interrupted).toEqual({ status: 202, body: { sessionId: first.sessionId, interrupted: true } });
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({
      sessionId: first.sessionId,
      result: { message: { content: 'so far' }, metadata: { finishReason: 'interrupted' } },
    });
    const next = (await (
      await post(b, '/chat/alpha', { messages: [{ role: 'user', content: 'go on' }], sessionId: first.sessionId })
    ).json()) as {
      result: { message: { content: string } };
    };
    expect(next.result.message.content).toBe('next');
  });
});
