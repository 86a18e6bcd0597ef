import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ApprovalRequest, CallContext, ChatRequest, StreamEvent, ToolAdapter } from '@toolbridge/core';
import { adapterStream, makeTempDir, pathWith, processesWithEnv, realCliBinDir, writeStdioMcpServer } from '@toolbridge/test-suite/kit';
import { createGeminiCliAdapter } from './adapter.js';
import { startMockGeminiServer, type MockGeminiServer } from './testing/mock-gemini-server.js';

/**
 * A chat's `mcpServers` reach the real, pinned `gemini --acp` in `session/new`: the mock model calls
 * the tiny stdio MCP server's tool, the call is asked about and shows as `tool_call` activity.
 */

let mock: MockGeminiServer;
let adapter: ToolAdapter;
let tmp: { dir: string; cleanup(): Promise<void> };
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  mock = await startMockGeminiServer();
  tmp = await makeTempDir('toolbridge-gemini-mcp-');
  await mkdir(path.join(tmp.dir, '.gemini'));
  await writeFile(
    path.join(tmp.dir, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }),
  );
  env = {
    PATH: pathWith(realCliBinDir('gemini')),
    HOME: tmp.dir,
    GOOGLE_GEMINI_BASE_URL: mock.url,
    GEMINI_API_KEY: 'dummy-key',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  adapter = createGeminiCliAdapter();
});

afterAll(async () => {
  await adapter?.dispose?.();
  await mock?.close();
  await tmp?.cleanup();
});

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], ...extra });
const direct = (extra: Partial<CallContext> & Record<string, unknown> = {}): CallContext => ({
  config: { geminiModel: 'gemini-2.5-flash' },
  env,
  signal: AbortSignal.timeout(120_000),
  ...extra,
});
const declared = (r: { body: any }): string[] =>
  (r.body.tools ?? []).flatMap((t: { functionDeclarations?: Array<{ name: string }> }) =>
    (t.functionDeclarations ?? []).map((d) => d.name),
  );

describe('mcpServers handed to real gemini 0.61.0 over ACP', () => {
  // At full with a caller to ask, Gemini runs in its `default` mode: the MCP call is asked like any action.
  it('the model calls the server tool; it is asked about, runs and shows as tool_call activity; a chat without it never sees it', async () => {
    const cwd = path.join(tmp.dir, 'work');
    await mkdir(cwd);
    const marks = path.join(tmp.dir, 'marks');
    const server = await writeStdioMcpServer(tmp.dir, 'tiny', marks, { SECRET_TOKEN: 'never-in-argv-42' });
    mock.queue.push({ kind: 'call', calls: [{ name: TOOL, args: { key: 'alpha' } }] }, { kind: 'text', chunks: ['Looked up.'] });
    const asked: ApprovalRequest[] = [];
    const approvals = { ask: async (r: ApprovalRequest) => (asked.push(r), { allow: true }) };
    const before = mock.modelRequests().length;
    const events: StreamEvent[] = [];
    const request = ask('look alpha up', { cwd, permissions: 'full', mcpServers: [server] });
    for await (const e of adapterStream(adapter, request, direct({ approvals }))) events.push(e);
    const result = events.at(-1);
    if (result?.type !== 'result') throw new Error('no result');
    expect(result.result.message.content).toBe('Looked up.');
    expect(result.result.metadata.transport).toBe('warm');
    const requests = mock.modelRequests().slice(before);
    expect(declared(requests[0]!)).toContain(TOOL);
    // The tool's answer reached the model.
    expect(JSON.stringify(requests[1]!.body.contents)).toContain('lookup answers alpha');
    expect(existsSync(marks) && readFileSync(marks, 'utf8')).toBe('called alpha\n');
    expect(asked).toEqual([expect.objectContaining({ kind: 'tool_call' })]);
    const activities = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
    expect(activities.at(-1)).toMatchObject({ kind: 'tool_call', status: 'completed' });
    // The server's env went over the ACP pipe, not argv.
    const argvs = processesWithEnv(`HOME=${tmp.dir}`).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    expect(argvs.length).toBeGreaterThan(0);
    expect(argvs.join('\n')).not.toContain('never-in-argv-42');

    // A plain chat on the same adapter: its own session (and process), without the server's tools.
    mock.queue.push({ kind: 'text', chunks: ['Plain.'] });
    const plainBefore = mock.modelRequests().length;
    for await (const e of adapterStream(adapter, ask('hello', { cwd, permissions: 'full' }), direct())) void e;
    expect(declared(mock.modelRequests()[plainBefore]!)).not.toContain(TOOL);
  }, 240_000);

  it('is refused, not dropped, where only the spawn path could run the chat', async () => {
    const server = await writeStdioMcpServer(tmp.dir, 'tiny', path.join(tmp.dir, 'unused'));
    const run = async () => {
      for await (const e of adapterStream(adapter, ask('x', { mcpServers: [server] }), direct({ config: { warmIdleMs: 0 } }))) void e;
    };
    await expect(run()).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/only over its warm ACP transport/),
    });
    // Below full the admin policy denies every MCP tool (not confined to the workspace): refused rather than offered nothing.
    const below = async () => {
      for await (const e of adapterStream(adapter, ask('x', { permissions: 'workspace-write', mcpServers: [server] }), direct())) void e;
    };
    await expect(below()).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/MCP servers only at "full"/) });
  }, 60_000);
});

// Gemini offers an MCP tool as mcp_<server>_<tool> (measured: 0.61.0).
const TOOL = 'mcp_tiny_lookup';
