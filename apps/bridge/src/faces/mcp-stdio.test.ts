import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { makeTempDir, waitFor } from '@toolbridge/test-suite/kit';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FACE_FIXTURE, fromSource, REPO_ROOT } from '../testing/faces.js';

/** `toolbridge mcp` in its own process over scripted tools, as an MCP host starts it. */
async function startMcp(flags: string[] = []) {
  const { dir, cleanup } = await makeTempDir('toolbridge-mcp-stdio-');
  const marks = path.join(dir, 'marks');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: fromSource(FACE_FIXTURE, 'mcp', ...flags),
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      FACE_FIXTURE_MARKS: marks,
      FACE_FIXTURE_SESSIONS: path.join(dir, 's'),
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(transport);
  const lines = () => (existsSync(marks) ? readFileSync(marks, 'utf8').trim().split('\n') : []);
  const close = async () => {
    await client.close();
    await cleanup();
  };
  return { client, transport, lines, close };
}

const call = (client: Client, args: Record<string, unknown>, extra: Parameters<Client['callTool']>[2] = {}) =>
  client.callTool({ name: 'chat', arguments: args }, undefined, extra) as Promise<CallToolResult>;

describe('toolbridge mcp (stdio)', () => {
  let mcp: Awaited<ReturnType<typeof startMcp>>;
  beforeAll(async () => {
    mcp = await startMcp();
  }, 60_000);
  afterAll(() => mcp?.close());

  it('answers chat through the default chain, with progress per activity step', async () => {
    const messages: string[] = [];
    const result = await call(mcp.client, { prompt: 'hi' }, { onprogress: (p) => messages.push(p.message ?? '') });
    expect(result.content).toEqual([{ type: 'text', text: 'worker answers' }]);
    expect(result.structuredContent).toMatchObject({ toolId: 'worker', answer: 'worker answers', fallbackUsed: false });
    expect(messages).toEqual(['command: npm test', 'plan: Plan']);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['chat', 'discover', 'health']);
  });

  it('refuses permissions "full" unless started with --allow-full-permissions', async () => {
    const result = await call(mcp.client, { prompt: 'hi', permissions: 'full' });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('--allow-full-permissions') }]);
  });

  it('notifications/cancelled stops the turn within 2 s', async () => {
    const controller = new AbortController();
    const pending = call(mcp.client, { prompt: 'wait', toolId: 'hanging' }, { signal: controller.signal });
    await waitFor(() => mcp.lines().some((l) => l.startsWith('start hanging')), 10_000, 'the turn to start');
    const cancelledAt = Date.now();
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => mcp.lines().some((l) => l.startsWith('end hanging')), 2_000, 'the turn to end');
    const ended = Number(
      mcp
        .lines()
        .find((l) => l.startsWith('end hanging'))!
        .split(' ')[2],
    );
    expect(ended - cancelledAt).toBeLessThan(2_000);
  });

  it('ends when the host closes stdin', async () => {
    const pid = mcp.transport.pid!;
    await mcp.client.close();
    await waitFor(() => !isAlive(pid), 10_000, 'the server to exit');
  });
});

describe('toolbridge mcp --allow-full-permissions', () => {
  it('accepts permissions "full"', async () => {
    const mcp = await startMcp(['--allow-full-permissions']);
    try {
      const result = await call(mcp.client, { prompt: 'hi', toolId: 'worker', permissions: 'full' });
      expect(result.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
