import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ApprovalRequest, CallContext, ChatRequest, StreamEvent, ToolAdapter } from '@toolbridge/core';
import {
  adapterStream,
  cliCacheDir,
  makeTempDir,
  pathWith,
  processesWithEnv,
  REAL_CLIS,
  realCliBinDir,
  startHttpMcpServer,
  writeStdioMcpServer,
} from '@toolbridge/test-suite/kit';
import { createCopilotCliAdapter } from './adapter.js';
import { startMockOpenAIServer, type MockOpenAIServer } from './testing/mock-openai-server.js';

/**
 * A chat's `mcpServers` reach the real, pinned `copilot --acp --stdio` in `session/new`: the mock
 * model calls the tiny (Streamable HTTP) MCP server's tool, the call is asked about and shows as `tool_call` activity.
 */

let mock: MockOpenAIServer;
let adapter: ToolAdapter;
let tmp: { dir: string; cleanup(): Promise<void> };
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  mock = await startMockOpenAIServer();
  tmp = await makeTempDir('toolbridge-copilot-mcp-');
  env = {
    PATH: pathWith(realCliBinDir('copilot')),
    HOME: tmp.dir,
    COPILOT_PKG_CACHE_HOME: path.join(cliCacheDir(), `copilot-pkg-cache@${REAL_CLIS.copilot.version}`),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    COPILOT_PROVIDER_BASE_URL: mock.baseURL,
    COPILOT_OFFLINE: 'true',
  };
  await mkdir(path.join(tmp.dir, '.copilot'));
  await writeFile(path.join(tmp.dir, '.copilot', 'config.json'), '{ "firstLaunchAt": "2026-01-01T00:00:00.000Z" }\n');
  adapter = createCopilotCliAdapter();
});

afterAll(async () => {
  await adapter?.dispose?.();
  await mock?.close();
  await tmp?.cleanup();
});

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], ...extra });
const direct = (extra: Partial<CallContext> & Record<string, unknown> = {}): CallContext => ({
  config: { copilotModel: 'mock-model' },
  env,
  signal: AbortSignal.timeout(120_000),
  ...extra,
});
const declared = (r: { body: any }): string[] => (r.body.tools ?? []).map((t: { function?: { name: string } }) => t.function?.name);

describe('mcpServers handed to real copilot over ACP', () => {
  it('the model calls the url server tool; it is asked about, runs and shows as tool_call activity; a chat without it never sees it', async () => {
    const cwd = path.join(tmp.dir, 'work');
    await mkdir(cwd);
    const mcp = await startHttpMcpServer();
    try {
      const server = { name: 'tiny', url: `${mcp.url}/mcp`, headers: { Authorization: 'Bearer never-in-argv-42' } };
      mock.queue.push({ kind: 'call', calls: [{ name: TOOL, args: { key: 'alpha' } }] }, { kind: 'text', chunks: ['Looked up.'] });
      const asked: ApprovalRequest[] = [];
      const approvals = { ask: async (r: ApprovalRequest) => (asked.push(r), { allow: true }) };
      const before = mock.chatRequests().length;
      const events: StreamEvent[] = [];
      const request = ask('look alpha up', { cwd, permissions: 'workspace-write', mcpServers: [server] });
      for await (const e of adapterStream(adapter, request, direct({ approvals }))) events.push(e);
      const requests = mock.chatRequests().slice(before);
      const result = events.at(-1);
      if (result?.type !== 'result') throw new Error('no result');
      expect(result.result.message.content).toBe('Looked up.');
      expect(result.result.metadata.transport).toBe('warm');
      expect(declared(requests[0]!)).toContain(TOOL);
      // The tool's answer reached the model, and the server saw the entry's headers.
      expect(JSON.stringify(requests[1]!.body.messages)).toContain('lookup answers alpha');
      expect(mcp.calls).toEqual(['alpha']);
      expect(mcp.requests[0]!.headers.authorization).toBe('Bearer never-in-argv-42');
      expect(asked).toEqual([expect.objectContaining({ kind: 'tool_call' })]);
      const activities = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
      expect(activities.at(-1)).toMatchObject({ kind: 'tool_call', status: 'completed' });
      // The headers went over the ACP pipe, not argv.
      const argvs = processesWithEnv(`HOME=${tmp.dir}`).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      expect(argvs.length).toBeGreaterThan(0);
      expect(argvs.join('\n')).not.toContain('never-in-argv-42');

      // A plain chat on the same adapter: its own session (and process), without the server's tools.
      mock.queue.push({ kind: 'text', chunks: ['Plain.'] });
      const plainBefore = mock.chatRequests().length;
      for await (const e of adapterStream(adapter, ask('hello', { cwd, permissions: 'workspace-write' }), direct())) void e;
      expect(declared(mock.chatRequests()[plainBefore]!)).not.toContain(TOOL);
    } finally {
      await mcp.close();
    }
  }, 240_000);

  it('refuses a stdio server (Copilot rejects them from a client) and a chat only the spawn path could run', async () => {
    const stdio = await writeStdioMcpServer(tmp.dir, 'tiny', path.join(tmp.dir, 'unused'));
    const run = async (request: ChatRequest, ctx = direct()) => {
      for await (const e of adapterStream(adapter, request, ctx)) void e;
    };
    await expect(run(ask('x', { mcpServers: [stdio] }))).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/only url MCP servers .*"tiny" has a command/),
    });
    const url = { name: 'tiny', url: 'http://127.0.0.1:9/mcp' };
    await expect(run(ask('x', { mcpServers: [url] }), direct({ config: { warmIdleMs: 0 } }))).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/only over its warm ACP transport/),
    });
  }, 60_000);
});

// Copilot offers an MCP tool as <server>-<tool> (measured: 1.0.102).
const TOOL = 'tiny-lookup';
