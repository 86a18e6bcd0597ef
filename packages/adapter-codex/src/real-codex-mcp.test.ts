import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ChatRequest, StreamEvent } from '@toolbridge/core';
import { commandLinesWhile, processesWithEnv, testGate, writeStdioMcpServer, type ChatControl } from '@toolbridge/test-suite/kit';
import type { ResponsesBody } from './testing/mock-responses-server.js';
import { startRealCodex, TRANSPORTS, type RealCodex } from './testing/real-codex.js';

/**
 * A chat's `mcpServers` reach the real, pinned `codex` (exec and app-server): the mock model is
 * offered the tiny stdio MCP server's tool, calls it, and answers with its output; the call shows
 * as `tool_call` activity, and the server's env values never appear in any process's argv.
 */

const SECRET = 'never-in-argv-5150';
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The MCP tools Codex offered the model: `namespace/name` (an MCP server's tools come as namespace `mcp__<server>`). */
function offered(body: ResponsesBody | undefined): string[] {
  return (body?.tools ?? []).flatMap((t: { type: string; name?: string; tools?: Array<{ name?: string }> }) =>
    t.type === 'namespace' && t.name?.startsWith('mcp__') ? (t.tools ?? []).map((x) => `${t.name}/${x.name}`) : [],
  );
}

/** What the model was told about its tool calls (the outputs in a request). */
const toolOutputs = (body: ResponsesBody | undefined): string =>
  JSON.stringify((body?.input ?? []).filter((i) => typeof i.type === 'string' && i.type.endsWith('_output')));

describe.each(TRANSPORTS)('mcpServers handed to real codex 0.169.0 (%s)', (transport) => {
  let codex: RealCodex;
  let control: ChatControl = {};
  beforeAll(async () => {
    codex = await startRealCodex({ warm: transport === 'warm', control: () => control });
    cleanups.push(() => codex.close());
  });

  async function chat(request: ChatRequest) {
    const events: StreamEvent[] = [];
    for await (const e of codex.registry.stream('codex', request, { timeoutMs: 90_000 })) events.push(e);
    const result = events.flatMap((e) => (e.type === 'result' ? [e.result] : []))[0]!;
    return { result, activity: events.flatMap((e) => (e.type === 'activity' ? [e.activity] : [])) };
  }

  it('the model is offered the server tool, calls it and answers with its output; env values stay out of argv', async () => {
    const cwd = path.join(codex.home, `work-${transport}`);
    await mkdir(cwd, { recursive: true });
    const marks = path.join(codex.home, `marks-${transport}`);
    const server = await writeStdioMcpServer(codex.home, 'tiny', marks, { SECRET_TOKEN: SECRET });
    const before = codex.mock.modelRequests().length;
    codex.mock.queue(
      {
        kind: 'calls',
        calls: [
          { type: 'function_call', namespace: 'mcp__tiny', name: 'lookup', arguments: { key: 'alpha' } },
          // The commands the model runs must not see the secrets Codex holds for the servers.
          { type: 'function_call', name: 'exec_command', arguments: { cmd: 'env' } },
        ],
      },
      { kind: 'reply', text: 'The catalogue says: lookup answers alpha.' },
    );
    // Every command line of this Codex set-up and of the MCP server (by its HOME), while the chat runs.
    const { value, argvs } = await commandLinesWhile(
      () => [...codex.left(), ...processesWithEnv(`HOME=${codex.home}`)],
      chat({ messages: [{ role: 'user', content: 'Look alpha up' }], cwd, permissions: 'workspace-write', mcpServers: [server] }),
    );
    const requests = codex.mock.modelRequests().slice(before);
    expect(offered(requests[0])).toContain('mcp__tiny/lookup');
    // The tool ran (its env came through: MCP_MARKS is one of it) and its output reached the model.
    expect(existsSync(marks) && readFileSync(marks, 'utf8')).toBe('called alpha\n');
    expect(toolOutputs(requests[1])).toContain('lookup answers alpha');
    expect(toolOutputs(requests[1])).toContain('CODEX_HOME=');
    expect(toolOutputs(requests[1])).not.toContain('TOOLBRIDGE_MCP_');
    expect(toolOutputs(requests[1])).not.toContain(SECRET);
    expect(value.result.message.content).toContain('lookup answers alpha');
    expect(value.result.metadata.transport).toBe(transport);
    expect(value.activity).toContainEqual(expect.objectContaining({ kind: 'tool_call', status: 'completed' }));
    // Codex and the MCP server were seen, and no command line held a value of the server's env.
    expect(argvs.some((a) => a.includes('tiny-mcp-server.mjs'))).toBe(true);
    expect(argvs.some((a) => a.includes('codex'))).toBe(true);
    expect(argvs.join('\n')).not.toContain(SECRET);
    expect(argvs.join('\n')).not.toContain(marks);

    // A plain chat right after: the server's tools are not offered.
    const plainBefore = codex.mock.modelRequests().length;
    codex.mock.queue({ kind: 'reply', text: 'Plain.' });
    await chat({ messages: [{ role: 'user', content: 'hello' }], cwd, permissions: 'workspace-write' });
    expect(offered(codex.mock.modelRequests()[plainBefore])).toEqual([]);
  }, 180_000);

  it('at read-only every call of a server tool is refused', async () => {
    const cwd = path.join(codex.home, `work-ro-${transport}`);
    await mkdir(cwd, { recursive: true });
    const marks = path.join(codex.home, `marks-ro-${transport}`);
    const server = await writeStdioMcpServer(codex.home, 'tiny', marks);
    const before = codex.mock.modelRequests().length;
    codex.mock.queue(
      { kind: 'calls', calls: [{ type: 'function_call', namespace: 'mcp__tiny', name: 'lookup', arguments: { key: 'beta' } }] },
      { kind: 'reply', text: 'Could not.' },
    );
    const { result, activity } = await chat({
      messages: [{ role: 'user', content: 'Look beta up' }],
      cwd,
      permissions: 'read-only',
      mcpServers: [server],
    });
    expect(result.message.content).toBe('Could not.');
    expect(existsSync(marks)).toBe(false);
    expect(toolOutputs(codex.mock.modelRequests().slice(before)[1])).not.toContain('lookup answers beta');
    expect(activity.filter((a) => a.kind === 'tool_call').at(-1)).toMatchObject({ status: 'failed' });
  }, 180_000);

  if (transport === 'warm')
    it('with approvals, each call of a server tool is asked about first (allowed, then refused)', async () => {
      const cwd = path.join(codex.home, 'work-ask');
      await mkdir(cwd, { recursive: true });
      const marks = path.join(codex.home, 'marks-ask');
      const server = await writeStdioMcpServer(codex.home, 'tiny', marks);
      const call = (key: string) => ({
        kind: 'calls' as const,
        calls: [{ type: 'function_call' as const, namespace: 'mcp__tiny', name: 'lookup', arguments: { key } }],
      });
      const gate = testGate((r) => ({ allow: (r.input as { key?: string } | undefined)?.key === 'yes' }));
      control = { approvals: gate };
      try {
        codex.mock.queue(call('yes'), call('no'), { kind: 'reply', text: 'Both tried.' });
        const { result, activity } = await chat({
          messages: [{ role: 'user', content: 'Look two keys up' }],
          cwd,
          // Codex takes approvals at full (and read-only) only: see the adapter's stream.
          permissions: 'full',
          mcpServers: [server],
        });
        expect(result.message.content).toBe('Both tried.');
        expect(gate.asked).toEqual([
          expect.objectContaining({ kind: 'tool_call', tool: 'tiny.lookup', input: { key: 'yes' } }),
          expect.objectContaining({ kind: 'tool_call', tool: 'tiny.lookup', input: { key: 'no' } }),
        ]);
        // Only the allowed call ran.
        expect(readFileSync(marks, 'utf8')).toBe('called yes\n');
        const ended = activity.filter((a) => a.kind === 'tool_call' && a.status !== 'started');
        expect(ended.map((a) => [a.title, a.status])).toEqual([
          ['tiny.lookup', 'completed'],
          ['tiny.lookup', 'failed'],
        ]);
      } finally {
        control = {};
      }
    }, 180_000);
});
