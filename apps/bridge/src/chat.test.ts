import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, ToolAuthError } from '@toolbridge/core';
import { makeTempDir, pathWith, waitFor, waitForPidsGone, writeFakeBin } from '@toolbridge/test-suite/kit';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fakeToolScript, memoryAdapter, processAdapter } from './testing/adapters.js';
import { readSse, startTestBridge, type TestBridge } from './testing/harness.js';

const hello = { messages: [{ role: 'user', content: 'Say hello' }] };

const pidsIn = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);

describe('fallback chat over HTTP (POST /chat)', () => {
  let bridge: TestBridge;
  const alpha = memoryAdapter('alpha', { reply: 'alpha answers' });
  const broken = memoryAdapter('broken', { fail: () => new ProviderExecutionError('broken crashed', { toolId: 'broken' }) });
  const slow = memoryAdapter('slow', { delayMs: 3_000 });
  const loggedOut = memoryAdapter('loggedout', { fail: () => new ToolAuthError('not logged in', { toolId: 'loggedout' }) });
  beforeAll(async () => {
    bridge = await startTestBridge([alpha, broken, slow, loggedOut]);
  });
  afterAll(() => bridge.close());

  it('answers from the first tool without fallback', async () => {
    const res = await bridge.request('/chat', { method: 'POST', json: { providers: ['alpha', 'broken'], ...hello } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      toolId: 'alpha',
      type: 'agent',
      fallbackUsed: false,
      result: { message: { role: 'assistant', content: 'alpha answers' } },
    });
    expect(body.attempts).toEqual([expect.objectContaining({ toolId: 'alpha', tryIndex: 0, stage: 'execution', outcome: 'succeeded' })]);
  });

  it('falls back past a failing and a timed-out tool, recording the attempts', async () => {
    const res = await bridge.request('/chat', {
      method: 'POST',
      json: { providers: ['broken', 'slow', 'alpha'], perAttemptTimeoutMs: 150, ...hello },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { toolId: string; fallbackUsed: boolean; attempts: Array<Record<string, unknown>> };
    expect(body.toolId).toBe('alpha');
    expect(body.fallbackUsed).toBe(true);
    const executed = body.attempts.filter((a) => a.stage === 'execution');
    expect(executed.map((a) => [a.toolId, a.outcome, a.reason])).toEqual([
      ['broken', 'failed', 'provider_execution_failed'],
      ['slow', 'failed', 'timeout'],
      ['alpha', 'succeeded', undefined],
    ]);
  });

  it('fails with the last error and the attempts when every tool fails', async () => {
    const res = await bridge.request('/chat', { method: 'POST', json: { providers: ['broken', 'loggedout'], ...hello } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const body = (await res.json()) as { error: { code: string; attempts: Array<{ toolId: string }> } };
    expect(['tool_auth_required', 'provider_execution_failed']).toContain(body.error.code);
    expect(body.error.attempts.map((a) => a.toolId)).toEqual(expect.arrayContaining(['broken', 'loggedout']));
  });

  it('404 for an unknown provider, 400 for a bad body', async () => {
    const unknown = await bridge.request('/chat', { method: 'POST', json: { providers: ['alpha', 'nope'], ...hello } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'tool_not_found',
      message: expect.stringContaining('"nope"'),
    });
    for (const bad of [
      { ...hello },
      { providers: [], ...hello },
      { providers: ['alpha'], ...hello, retries: -1 },
      { providers: ['alpha'], ...hello, perAttemptTimeoutMs: 'x' },
    ]) {
      const res = await bridge.request('/chat', { method: 'POST', json: bad });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
  });
});

describe('SSE streaming', () => {
  let bridge: TestBridge;
  const alpha = memoryAdapter('alpha', { reply: 'one two three' });
  const broken = memoryAdapter('broken', { fail: () => new ProviderExecutionError('broken crashed', { toolId: 'broken' }) });
  const loggedOut = memoryAdapter('loggedout', { fail: () => new ToolAuthError('not logged in', { toolId: 'loggedout' }) });
  const midFail = memoryAdapter('midfail', {
    reply: 'first second third',
    failAfterDeltas: 1,
    fail: () => new ProviderExecutionError('lost the connection', { toolId: 'midfail' }),
  });
  beforeAll(async () => {
    bridge = await startTestBridge([alpha, broken, loggedOut, midFail]);
  });
  afterAll(() => bridge.close());

  it('POST /chat/:toolId with stream:true sends deltas then done with the full response', async () => {
    const res = await bridge.request('/chat/alpha', { method: 'POST', json: { ...hello, stream: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toMatch(/no-cache/);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'done']);
    expect(
      events
        .filter((e) => e.event === 'delta')
        .map((e) => (e.data as { text: string }).text)
        .join(''),
    ).toBe('one two three');
    expect(events.at(-1)!.data).toEqual({
      toolId: 'alpha',
      type: 'agent',
      model: 'alpha-default',
      sessionId: expect.stringMatching(/^tbs_/),
      result: { message: { role: 'assistant', content: 'one two three' }, usage: { input_tokens: 3, output_tokens: 3 } },
      latencyMs: expect.any(Number),
    });
  });

  it('POST /chat with stream:true sends attempts, deltas and done with attempts and fallbackUsed', async () => {
    const res = await bridge.request('/chat', { method: 'POST', json: { providers: ['broken', 'alpha'], ...hello, stream: true } });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    const kinds = events.map((e) => e.event);
    expect(kinds[kinds.length - 1]).toBe('done');
    expect(kinds.filter((k) => k === 'delta')).toHaveLength(3);
    expect(kinds.indexOf('attempt')).toBeLessThan(kinds.indexOf('delta'));
    const done = events.at(-1)!.data as { toolId: string; fallbackUsed: boolean; attempts: Array<{ toolId: string; outcome: string }> };
    expect(done.toolId).toBe('alpha');
    expect(done.fallbackUsed).toBe(true);
    expect(done.attempts.filter((a) => a.outcome !== 'skipped').map((a) => [a.toolId, a.outcome])).toEqual([
      ['broken', 'failed'],
      ['alpha', 'succeeded'],
    ]);
  });

  it('a failure before the first delta is a plain JSON error with its status', async () => {
    const res = await bridge.request('/chat/loggedout', { method: 'POST', json: { ...hello, stream: true } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('tool_auth_required');
    const all = await bridge.request('/chat', { method: 'POST', json: { providers: ['broken', 'loggedout'], ...hello, stream: true } });
    expect(all.status).toBeGreaterThanOrEqual(400);
    const body = (await all.json()) as { error: { attempts: unknown[] } };
    expect(body.error.attempts.length).toBeGreaterThanOrEqual(2);
  });

  it('a failure after the first delta ends the stream with an error event carrying the code', async () => {
    const res = await bridge.request('/chat/midfail', { method: 'POST', json: { ...hello, stream: true } });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual(['delta', 'error']);
    expect(events[1]!.data).toMatchObject({
      error: { code: 'provider_execution_failed', message: expect.stringContaining('lost the connection') },
    });
    // No fallback after a delta: the second tool is never tried.
    const fb = await bridge.request('/chat', { method: 'POST', json: { providers: ['midfail', 'alpha'], ...hello, stream: true } });
    const fbEvents = await readSse(fb);
    expect(fbEvents.map((e) => e.event).filter((e) => e !== 'attempt')).toEqual(['delta', 'error']);
    expect(fbEvents.at(-1)!.data).toMatchObject({ error: { code: 'provider_execution_failed' } });
  });
});

describe('tool processes', () => {
  let tmp: { dir: string; cleanup(): Promise<void> };
  let bridge: TestBridge | undefined;
  beforeAll(async () => {
    tmp = await makeTempDir('bridge-proc-');
  });
  afterEach(async () => {
    await bridge?.close();
    bridge = undefined;
  });
  afterAll(() => tmp.cleanup());

  const setup = async (name: string, script: Parameters<typeof fakeToolScript>[0]) => {
    const binDir = path.join(tmp.dir, name, 'bin');
    await writeFakeBin(binDir, 'faketool', fakeToolScript(script));
    bridge = await startTestBridge([processAdapter('fake', 'faketool')], { env: { PATH: pathWith(binDir), HOME: tmp.dir } });
    return bridge;
  };

  it('config set over HTTP reaches the next chat (model in argv), and a request model wins', async () => {
    const pidFile = path.join(tmp.dir, 'cfg.pids');
    const argvFile = path.join(tmp.dir, 'cfg.argv');
    const b = await setup('cfg', { deltas: ['ok'], pidFile, argvFile });
    expect((await b.request('/config', { method: 'PUT', json: { fakeModel: 'big-model' } })).status).toBe(200);
    const res = await b.request('/chat/fake', { method: 'POST', json: hello });
    expect(await res.json()).toMatchObject({ toolId: 'fake', model: 'big-model', result: { message: { content: 'ok' } } });
    expect(JSON.parse(readFileSync(argvFile, 'utf8'))).toEqual(['chat', '--model', 'big-model']);
    await (await b.request('/chat/fake', { method: 'POST', json: { ...hello, model: 'other' } })).text();
    expect(JSON.parse(readFileSync(argvFile, 'utf8'))).toEqual(['chat', '--model', 'other']);
    await b.request('/config', { method: 'PUT', json: {} });
    await (await b.request('/chat/fake', { method: 'POST', json: hello })).text();
    expect(JSON.parse(readFileSync(argvFile, 'utf8'))).toEqual(['chat']);
  });

  it('a client that disconnects mid-stream kills the tool process', async () => {
    const pidFile = path.join(tmp.dir, 'disc.pids');
    const b = await setup('disc', { deltas: ['first '], hangAfter: true, pidFile });
    const controller = new AbortController();
    const res = await b.request('/chat/fake', { method: 'POST', json: { ...hello, stream: true }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: delta');
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(1);
    controller.abort();
    expect(await waitForPidsGone(pids, 8_000)).toEqual([]);
    await waitFor(() => b.logs.some((l) => l.route === '/chat/:toolId' && l.aborted === true), 5_000, 'the aborted request log');
  });

  it('a client that disconnects from a non-streamed chat kills the tool process', async () => {
    const pidFile = path.join(tmp.dir, 'disc2.pids');
    const b = await setup('disc2', { deltas: [], hangAfter: true, pidFile });
    const controller = new AbortController();
    const pending = b.request('/chat/fake', { method: 'POST', json: hello, signal: controller.signal }).catch((e: Error) => e);
    await waitFor(() => pidsIn(pidFile).length === 1, 5_000, 'the tool to start');
    controller.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    expect(await waitForPidsGone(pidsIn(pidFile), 8_000)).toEqual([]);
  });

  it('close() with a chat in flight ends the tool process and answers the caller', async () => {
    const pidFile = path.join(tmp.dir, 'close.pids');
    const b = await setup('close', { deltas: [], hangAfter: true, pidFile });
    const pending = b.request('/chat/fake', { method: 'POST', json: hello }).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      (e: Error) => e,
    );
    await waitFor(() => pidsIn(pidFile).length === 1, 5_000, 'the tool to start');
    const pids = pidsIn(pidFile);
    await b.close();
    bridge = undefined;
    expect(await waitForPidsGone(pids, 8_000)).toEqual([]);
    const outcome = await pending;
    expect(outcome).toMatchObject({ status: 503 });
    // The port no longer accepts connections.
    await expect(fetch(`${b.url}/config`)).rejects.toThrow();
  });

  it('close() during a stream sends an error event and ends the process', async () => {
    const pidFile = path.join(tmp.dir, 'close-sse.pids');
    const b = await setup('close-sse', { deltas: ['partial '], hangAfter: true, pidFile });
    const res = await b.request('/chat/fake', { method: 'POST', json: { ...hello, stream: true } });
    const reader = res.body!.getReader();
    await reader.read();
    const pids = pidsIn(pidFile);
    const closing = b.close();
    bridge = undefined;
    let rest = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    await closing;
    expect(rest).toContain('event: error');
    expect(rest).toContain('tool_unavailable');
    expect(await waitForPidsGone(pids, 8_000)).toEqual([]);
  });
});
