import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { currentToolResults, startMockAnthropic, type MockAnthropicServer } from '@toolbridge/adapter-claude-code/testing';
import { startMockResponsesServer, type MockResponsesServer } from '@toolbridge/adapter-codex/testing';
import { makeTempDir, pathWith, realCliBinDir } from '@toolbridge/test-suite/kit';
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BRIDGE_CLI, fromSource } from '../testing/faces.js';

/**
 * The proof with real hosts (see cli-facts.md, "MCP hosts and the ACP SDK"): the real Claude Code,
 * configured with `toolbridge mcp` through `--mcp-config`, calls the `chat` tool; Toolbridge asks
 * the real Codex; Codex's answer reaches Claude's next model request. Both models are mocks.
 */
describe('Claude Code as the MCP host of toolbridge mcp, with Codex answering', () => {
  let claudeModel: MockAnthropicServer;
  let codexModel: MockResponsesServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  beforeAll(async () => {
    tmp = await makeTempDir('toolbridge-real-host-');
    codexModel = await startMockResponsesServer({ kind: 'reply', text: 'Codex says the answer is 42' });
    await codexModel.writeCodexConfig(path.join(tmp.dir, 'codex-home'));
    claudeModel = await startMockAnthropic({
      mode: 'script',
      script: (body) =>
        currentToolResults(body).length === 0
          ? {
              blocks: [
                { type: 'tool_use', id: 'toolu_tb_1', name: 'mcp__tb__chat', input: { prompt: 'What is the answer?', toolId: 'codex' } },
              ],
            }
          : { blocks: [{ type: 'text', text: 'Claude relays what Codex said.' }] },
    });
  });
  afterAll(async () => {
    await claudeModel?.close();
    await codexModel?.close();
    await tmp?.cleanup();
  });

  it('gets the real Codex CLI’s answer into its own next model request', async () => {
    const home = path.join(tmp.dir, 'home');
    const work = path.join(tmp.dir, 'work');
    await Promise.all([mkdir(home, { recursive: true }), mkdir(work, { recursive: true })]);
    // What a user writes: the server's command, and the environment Codex needs (Claude passes its own too).
    const mcpConfig = {
      mcpServers: {
        tb: {
          type: 'stdio',
          command: process.execPath,
          args: fromSource(BRIDGE_CLI, 'mcp'),
          env: {
            PATH: pathWith(realCliBinDir('codex')),
            CODEX_HOME: path.join(tmp.dir, 'codex-home'),
            MOCK_API_KEY: 'dummy',
            XDG_STATE_HOME: path.join(home, 'state'),
          },
        },
      },
    };
    const env = {
      PATH: pathWith(realCliBinDir('claude-code')),
      HOME: home,
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      ANTHROPIC_BASE_URL: claudeModel.url,
      ANTHROPIC_API_KEY: 'dummy',
      // Starting the server from source takes seconds on a loaded machine: more than Claude's default wait.
      MCP_TIMEOUT: '90000',
      TMPDIR: process.env.TMPDIR ?? '/tmp',
    };
    const args = [
      '-p',
      'Ask Codex for the answer',
      '--mcp-config',
      JSON.stringify(mcpConfig),
      '--strict-mcp-config',
      '--allowedTools',
      'mcp__tb__chat',
    ];
    const output = await new Promise<string>((resolve, reject) =>
      execFile('claude', args, { cwd: work, env, timeout: 120_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`claude failed: ${err.message}\n${stderr.slice(-2000)}`)) : resolve(stdout),
      ),
    );
    expect(output).toContain('Claude relays what Codex said.');
    // Codex was asked the tool's prompt …
    const codexAsked = JSON.stringify(codexModel.modelRequests().map((r) => r.input));
    expect(codexAsked).toContain('What is the answer?');
    // … and its answer is in the tool result of Claude's next model request.
    const followUp = claudeModel.messageRequests().find((r) => currentToolResults(r.body).length > 0);
    expect(followUp).toBeDefined();
    const result = JSON.stringify(currentToolResults(followUp!.body));
    expect(result).toContain('Codex says the answer is 42');
    expect(result).toContain('"toolId\\":\\"codex\\"');
  }, 180_000);
});
