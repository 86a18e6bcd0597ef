import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Activity } from '@toolbridge/core';
import { scriptedAdapter, waitFor } from '@toolbridge/test-suite/kit';
import { memoryAdapter } from '../testing/adapters.js';
import { startTestBridge, type TestBridge } from '../testing/harness.js';

const steps: Activity[] = [
  { id: 'c1', kind: 'command', status: 'started', title: 'Run npm test', command: 'npm test' },
  { id: 'c1', kind: 'command', status: 'completed', title: 'Run npm test', command: 'npm test', exitCode: 0 },
  { id: 'f1', kind: 'file_change', status: 'completed', title: 'Edit', changes: [{ path: 'src/a.ts', kind: 'update' }] },
];

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } }));
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>, extra: Parameters<Client['callTool']>[2] = {}) =>
  client.callTool({ name, arguments: args }, undefined, extra) as Promise<CallToolResult>;

describe('MCP over Streamable HTTP (POST /mcp)', () => {
  let bridge: TestBridge;
  const worker = scriptedAdapter('worker', { login: 'logged-in', script: [{ activity: steps, deltas: ['tests ', 'pass'] }] });
  const hanging = scriptedAdapter('hanging', { login: 'logged-in', script: [{ deltas: ['partial '], hang: true }] });
  const broken = memoryAdapter('broken', { fail: () => new Error('boom') });
  let client: Client;
  beforeAll(async () => {
    bridge = await startTestBridge([broken, worker, hanging]);
    client = await connect(bridge.url);
  });
  afterAll(async () => {
    await client?.close();
    await bridge.close();
  });

  it('offers exactly the tools chat, discover and health', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['chat', 'discover', 'health']);
    const chat = tools.find((t) => t.name === 'chat')!;
    expect(Object.keys(chat.inputSchema.properties ?? {}).sort()).toEqual(
      ['cwd', 'permissions', 'prompt', 'providers', 'schema', 'sessionId', 'timeoutMs', 'toolId'].sort(),
    );
    expect(chat.inputSchema.required).toEqual(['prompt']);
  });

  it('chat answers as text and structuredContent, with a progress notification per activity step', async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await call(client, 'chat', { prompt: 'run the tests', toolId: 'worker' }, { onprogress: (p) => progress.push(p) });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'tests pass' }]);
    expect(result.structuredContent).toMatchObject({
      toolId: 'worker',
      sessionId: expect.stringMatching(/^tbs_/),
      answer: 'tests pass',
      fallbackUsed: false,
      attempts: [expect.objectContaining({ toolId: 'worker', outcome: 'succeeded' })],
      usage: expect.objectContaining({ input_tokens: 3 }),
    });
    expect(progress.map((p) => p.message)).toEqual(['command: npm test', 'command: npm test', 'file_change: update src/a.ts']);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(worker.requests.at(-1)!.messages.at(-1)!.content).toEqual([{ type: 'text', text: 'run the tests' }]);
  });

  it('continues a session and falls back along providers', async () => {
    const first = await call(client, 'chat', { prompt: 'one', providers: ['broken', 'worker'] });
    const s = first.structuredContent as { toolId: string; sessionId: string; fallbackUsed: boolean; attempts: unknown[] };
    expect([s.toolId, s.fallbackUsed, s.attempts.length]).toEqual(['worker', true, 2]);
    const second = await call(client, 'chat', { prompt: 'two', sessionId: s.sessionId });
    expect(second.structuredContent).toMatchObject({ toolId: 'worker', sessionId: s.sessionId });
    expect(worker.requests.at(-1)!.messages.map((m) => m.role)).toContain('assistant');
  });

  it('a failure is isError with the code and message; bad arguments too', async () => {
    const failed = await call(client, 'chat', { prompt: 'x', toolId: 'nope' });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: expect.stringMatching(/^tool_not_found: .*"nope"/) }]);
    const both = await call(client, 'chat', { prompt: 'x', toolId: 'worker', providers: ['worker'] });
    expect(both.isError).toBe(true);
    expect(JSON.stringify(both.content)).toContain('invalid_request');
    const bad = await call(client, 'chat', { prompt: 'x', permissions: 'root' });
    expect(bad.isError).toBe(true);
  });

  it('permissions "full" is refused without a token', async () => {
    const before = worker.requests.length;
    const result = await call(client, 'chat', { prompt: 'x', toolId: 'worker', permissions: 'full' });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^forbidden: permissions "full" is refused/) }]);
    expect(worker.requests.length).toBe(before);
  });

  it('cancelling the call stops the turn within 2 s', async () => {
    const controller = new AbortController();
    const pending = call(client, 'chat', { prompt: 'wait', toolId: 'hanging' }, { signal: controller.signal });
    await waitFor(() => hanging.calls.length === 1);
    const cancelledAt = performance.now();
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => hanging.calls[0]!.endedAt !== undefined, 2_000, 'the turn to end');
    expect(hanging.calls[0]!.endedAt! - cancelledAt).toBeLessThan(2_000);
    expect(hanging.aborts).toHaveLength(1);
  });

  it('discover and health return the records', async () => {
    const discover = await call(client, 'discover', {});
    expect((discover.structuredContent as { tools: Array<{ id: string }> }).tools.map((t) => t.id)).toEqual([
      'broken',
      'worker',
      'hanging',
    ]);
    const one = await call(client, 'health', { toolId: 'worker' });
    expect(one.structuredContent).toMatchObject({ tools: [{ toolId: 'worker', status: 'healthy', authenticated: true }] });
    const all = await call(client, 'health', {});
    expect((all.structuredContent as { tools: unknown[] }).tools).toHaveLength(3);
    const unknown = await call(client, 'health', { toolId: 'nope' });
    expect(unknown.isError).toBe(true);
  });

  it('is behind the Host and Origin checks, and a request that is not MCP gets the error envelope', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    const foreign = await bridge.request('/mcp', { method: 'POST', json: init, headers: { ...headers, origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    const noSession = await bridge.request('/mcp', { method: 'POST', json: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers });
    expect(noSession.status).toBe(400);
    expect(((await noSession.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const gone = await bridge.request('/mcp', { method: 'POST', json: init, headers: { ...headers, 'mcp-session-id': 'nope' } });
    expect(gone.status).toBe(404);
    const put = await bridge.request('/mcp', { method: 'PUT', json: {} });
    expect(put.status).toBe(405);
  });
});

describe('MCP over HTTP on a bridge with a token', () => {
  let bridge: TestBridge;
  const worker = scriptedAdapter('worker', { reply: 'done' });
  beforeAll(async () => {
    bridge = await startTestBridge([worker], { token: 'sekret-token' });
  });
  afterAll(() => bridge.close());

  it('needs the token, and then allows permissions "full"', async () => {
    await expect(connect(bridge.url)).rejects.toThrow();
    const client = await connect(bridge.url, { authorization: 'Bearer sekret-token' });
    try {
      const result = await call(client, 'chat', { prompt: 'x', permissions: 'full' });
      expect(result.isError).toBeFalsy();
      expect(worker.requests.at(-1)!.permissions).toBe('full');
    } finally {
      await client.close();
    }
  });
});

describe('MCP over HTTP from a browser page on an allowed origin', () => {
  let bridge: TestBridge;
  const origin = 'http://localhost:5173';
  beforeAll(async () => {
    bridge = await startTestBridge([scriptedAdapter('worker', { reply: 'done' })], { allowedOrigins: [origin] });
  });
  afterAll(() => bridge.close());

  it("may send MCP's headers and read Mcp-Session-Id, which the browser hides unless exposed", async () => {
    const pre = await bridge.request('/mcp', {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,mcp-session-id,mcp-protocol-version',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-protocol-version');
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
    };
    const res = await bridge.request('/mcp', {
      method: 'POST',
      json: init,
      headers: { origin, accept: 'application/json, text/event-stream' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    const exposed = res.headers
      .get('access-control-expose-headers')
      ?.toLowerCase()
      .split(/\s*,\s*/);
    expect(exposed).toContain('mcp-session-id');
    expect(res.headers.get('mcp-session-id')).toMatch(/\S/);
    await res.body?.cancel();
  });
});
