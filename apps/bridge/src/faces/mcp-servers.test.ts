import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClaudeCodeAdapter } from '@toolbridge/adapter-claude-code';
import { currentToolResults, startMockAnthropic, type MockAnthropicServer } from '@toolbridge/adapter-claude-code/testing';
import { makeTempDir, pathWith, realCliBinDir, scriptedAdapter } from '@toolbridge/test-suite/kit';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { FACE_FIXTURE, fromSource } from '../testing/faces.js';
import { startTestBridge, type TestBridge } from '../testing/harness.js';

/**
 * `mcpServers` of a chat request reach the agent through its own mechanism. Here the real Claude
 * Code (against its mock model) is given `toolbridge mcp` over scripted tools as a server named
 * `tb`: it calls `tb.chat`, the call shows as `tool_call` activity and its result reaches the model.
 */
describe('mcpServers handed to Claude Code (real CLI)', () => {
  let model: MockAnthropicServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  let bridge: TestBridge;
  beforeAll(async () => {
    tmp = await makeTempDir('toolbridge-mcp-servers-');
    const home = path.join(tmp.dir, 'home');
    await mkdir(home, { recursive: true });
    model = await startMockAnthropic({
      mode: 'script',
      script: (body) =>
        currentToolResults(body).length === 0
          ? {
              blocks: [
                { type: 'tool_use', id: 'toolu_tb_1', name: 'mcp__tb__chat', input: { prompt: 'ask the worker', toolId: 'worker' } },
              ],
            }
          : { blocks: [{ type: 'text', text: 'The worker was asked.' }] },
    });
    const env = {
      PATH: pathWith(realCliBinDir('claude-code')),
      HOME: home,
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'dummy',
      // Starting the server from source takes seconds on a loaded machine: more than Claude's default wait.
      MCP_TIMEOUT: '90000',
    };
    bridge = await startTestBridge([createClaudeCodeAdapter({ warm: false }), scriptedAdapter('other')], { env });
  });
  afterAll(async () => {
    await bridge?.close();
    await model?.close();
    await tmp?.cleanup();
  });

  it('gives the agent the servers for that chat; the call is tool_call activity and its result reaches the model', async () => {
    const marks = path.join(tmp.dir, 'marks');
    const res = await bridge.request('/chat/claude-code', {
      method: 'POST',
      json: {
        messages: [{ role: 'user', content: 'Use the tb server' }],
        mcpServers: [
          {
            name: 'tb',
            command: process.execPath,
            args: fromSource(FACE_FIXTURE, 'mcp'),
            env: { FACE_FIXTURE_MARKS: marks, FACE_FIXTURE_SESSIONS: path.join(tmp.dir, 's'), SECRET_TOKEN: 'never-in-logs-42' },
          },
        ],
      },
    });
    const body = (await res.json()) as { result: { message: { content: string } }; activities?: Array<Record<string, unknown>> };
    expect(res.status).toBe(200);
    expect(body.result.message.content).toBe('The worker was asked.');
    expect(body.activities).toContainEqual(expect.objectContaining({ kind: 'tool_call', server: 'tb', name: 'chat', status: 'completed' }));
    const followUp = model.messageRequests().find((r) => currentToolResults(r.body).length > 0);
    expect(JSON.stringify(currentToolResults(followUp!.body))).toContain('worker answers');
    expect(existsSync(marks) && readFileSync(marks, 'utf8')).toMatch(/^start worker/m);
    expect(JSON.stringify(bridge.logs)).not.toContain('never-in-logs-42');
  }, 120_000);

  it('a bad entry is a 400 naming it; a tool without MCP support is refused', async () => {
    const ask = (mcpServers: unknown, tool = 'claude-code') =>
      bridge.request(`/chat/${tool}`, { method: 'POST', json: { messages: [{ role: 'user', content: 'x' }], mcpServers } });
    const cases: Array<[unknown, RegExp]> = [
      [[{ name: 'a b', command: 'x' }], /mcpServers\.0\.name/],
      [[{ name: 'gh' }], /mcpServers\.0 \("gh"\) needs either "command" or "url"/],
      [[{ name: 'gh', command: 'x', url: 'http://127.0.0.1:1/mcp' }], /mcpServers\.0 \("gh"\)/],
      [[{ name: 'gh', url: 'file:///etc/passwd' }], /mcpServers\.0 \("gh"\): "url" must be an http or https URL/],
      [
        [
          { name: 'gh', command: 'x' },
          { name: 'gh', command: 'y' },
        ],
        /mcpServers\.1 \("gh"\): the name is used twice/,
      ],
      [[{ name: 'gh', command: 'x', env: { TOKEN: 5 } }], /mcpServers\.0\.env/],
    ];
    for (const [entries, message] of cases) {
      const res = await ask(entries);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(message);
    }
    const secret = await ask([{ name: 'gh', url: 'ftp://x', headers: { Authorization: 'Bearer top-secret-9' } }]);
    expect(await secret.text()).not.toContain('top-secret-9');
    const unsupported = await ask([{ name: 'gh', command: 'x' }], 'other');
    expect(unsupported.status).toBe(400);
    expect(((await unsupported.json()) as { error: { message: string } }).error.message).toMatch(/cannot be given MCP servers/);
  });
});
