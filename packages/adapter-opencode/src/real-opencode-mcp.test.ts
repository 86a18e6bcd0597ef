import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ChatRequest, PermissionLevel, StreamEvent } from '@toolbridge/core';
import { commandLinesWhile, testGate, writeStdioMcpServer, type ChatControl } from '@toolbridge/test-suite/kit';
import type { MockRequest } from './testing/mock-openai-server.js';
import { startRealOpenCode, type RealOpenCode } from './testing/real-opencode.js';

/**
 * A chat's `mcpServers` reach the real, pinned `opencode` (run and serve) through
 * `OPENCODE_CONFIG_CONTENT`: the mock model is offered the tiny stdio MCP server's tool, calls it
 * and answers with its output; the call shows as `tool_call` activity; the server's env values
 * never appear in any process's argv; a later chat in the same directory is not offered the tool.
 */

const T = { timeoutMs: 240_000 };
const SECRET = 'never-in-argv-6502';
/** OpenCode offers a server's tools as `<server>_<tool>` (measured: 1.18.33). */
const TOOL = 'tiny_lookup';

const offered = (r: MockRequest | undefined): string[] => (r?.body.tools ?? []).map((t) => t.function?.name ?? '');
const modelRequests = (oc: RealOpenCode, from: number) => oc.mock.requests.slice(from).filter((r) => !r.title);

describe.each(['spawn', 'warm'] as const)('mcpServers handed to real opencode 1.18.33 (%s)', (transport) => {
  let oc: RealOpenCode;
  let control: ChatControl = {};
  beforeAll(async () => {
    oc = await startRealOpenCode(
      { kind: 'steps', steps: [{ text: 'unused' }] },
      { opencodeModel: 'mock/mock-model', warmIdleMs: transport === 'warm' ? 120_000 : 0 },
      { control: () => control },
    );
  }, 120_000);
  afterAll(async () => {
    await oc?.close();
  }, 60_000);

  async function chat(request: ChatRequest) {
    const events: StreamEvent[] = [];
    for await (const e of oc.registry.stream('opencode', request, T)) events.push(e);
    const result = events.flatMap((e) => (e.type === 'result' ? [e.result] : []))[0]!;
    return { result, activity: events.flatMap((e) => (e.type === 'activity' ? [e.activity] : [])) };
  }

  const ask = (cwd: string, permissions: PermissionLevel, extra: Partial<ChatRequest> = {}): ChatRequest => ({
    messages: [{ role: 'user', content: 'Look alpha up' }],
    cwd,
    permissions,
    ...extra,
  });

  it('the model is offered the server tool, calls it and answers with its output; env values stay out of argv; the next chat is not offered it', async () => {
    const cwd = path.join(oc.home, 'work');
    await mkdir(cwd, { recursive: true });
    const marks = path.join(oc.home, 'marks');
    const server = await writeStdioMcpServer(oc.home, 'tiny', marks, { SECRET_TOKEN: SECRET });
    const at = oc.script({ calls: [{ name: TOOL, args: { key: 'alpha' } }] }, { text: 'The catalogue says: lookup answers alpha.' });
    const { value, argvs } = await commandLinesWhile(oc.left, chat(ask(cwd, 'workspace-write', { mcpServers: [server] })));
    const requests = modelRequests(oc, at);
    expect(offered(requests[0])).toContain(TOOL);
    // The tool ran (its env came through: MCP_MARKS is one of it) and its output reached the model.
    expect(existsSync(marks) && readFileSync(marks, 'utf8')).toBe('called alpha\n');
    expect(JSON.stringify(requests[1]?.body.messages)).toContain('lookup answers alpha');
    expect(value.result.message.content).toContain('lookup answers alpha');
    expect(value.result.metadata.transport).toBe(transport);
    expect(value.activity).toContainEqual(expect.objectContaining({ kind: 'tool_call', status: 'completed' }));
    // OpenCode and the MCP server were seen, and no command line held a value of the server's env.
    expect(argvs.some((a) => a.includes('tiny-mcp-server.mjs'))).toBe(true);
    expect(argvs.some((a) => a.includes('opencode'))).toBe(true);
    expect(argvs.join('\n')).not.toContain(SECRET);
    expect(argvs.join('\n')).not.toContain(marks);

    // The next chat in the same directory, without mcpServers: the tool is not offered.
    const plain = oc.script({ text: 'Plain.' });
    await chat(ask(cwd, 'workspace-write'));
    expect(offered(modelRequests(oc, plain)[0])).not.toContain(TOOL);
  }, 300_000);

  it('at read-only every call of a server tool is refused', async () => {
    const cwd = path.join(oc.home, 'work-ro');
    await mkdir(cwd, { recursive: true });
    const marks = path.join(oc.home, 'marks-ro');
    const server = await writeStdioMcpServer(oc.home, 'tiny', marks);
    const at = oc.script({ calls: [{ name: TOOL, args: { key: 'beta' } }] }, { text: 'Could not.' });
    const { activity } = await chat(ask(cwd, 'read-only', { mcpServers: [server] }));
    expect(existsSync(marks)).toBe(false);
    expect(JSON.stringify(modelRequests(oc, at).at(-1)?.body.messages)).not.toContain('lookup answers beta');
    expect(activity.filter((a) => a.kind === 'tool_call').at(-1)).toMatchObject({ status: 'failed' });
  }, 300_000);

  if (transport === 'warm')
    it('with approvals, a call of a server tool is asked about first (allowed, then refused)', async () => {
      const cwd = path.join(oc.home, 'work-ask');
      await mkdir(cwd, { recursive: true });
      const marks = path.join(oc.home, 'marks-ask');
      const server = await writeStdioMcpServer(oc.home, 'tiny', marks);
      // The first call allowed, the second refused: a refusal with a message goes back to the model
      // and the turn goes on (without one, OpenCode ends the turn).
      let n = 0;
      const gate = testGate(() => (n++ === 0 ? { allow: true } : { allow: false, message: 'NOT-NOW-77' }));
      control = { approvals: gate };
      try {
        oc.script(
          { calls: [{ name: TOOL, args: { key: 'yes' } }] },
          { calls: [{ name: TOOL, args: { key: 'no' } }] },
          { text: 'Both tried.' },
        );
        const { result } = await chat(ask(cwd, 'workspace-write', { mcpServers: [server] }));
        expect(result.message.content).toBe('Both tried.');
        // OpenCode asks while the call is still pending: the ask names the tool, not its input (measured: 1.18.33).
        expect(gate.asked).toEqual([
          expect.objectContaining({ kind: 'tool_call', tool: TOOL }),
          expect.objectContaining({ kind: 'tool_call', tool: TOOL }),
        ]);
        expect(readFileSync(marks, 'utf8')).toBe('called yes\n');
        expect(JSON.stringify(oc.mock.requests.filter((r) => !r.title).at(-1)?.body.messages)).toContain('NOT-NOW-77');
      } finally {
        control = {};
      }
    }, 300_000);
});
