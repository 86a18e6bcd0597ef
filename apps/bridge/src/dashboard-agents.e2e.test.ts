import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page, Request } from 'playwright-core';
import { textOf } from '@toolbridge/core/runtime';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { launchChromium, type Chromium } from './testing/chromium.js';
import { CITY, dashboardTools } from './testing/dashboard-tools.js';
import { startTestBridge, type TestBridge } from './testing/harness.js';

/**
 * The dashboard's agent features in a real headless Chromium, over the test kit's scripted
 * tools (testing/dashboard-tools.ts): the activity timeline, permission levels, sessions
 * (list, transcript, continue, hand-over, fork, delete), JSON answers and images. The steps
 * share one page and run in order; the last one leaves the README screenshot.
 */

// The README's screenshot is rewritten only when asked (`TOOLBRIDGE_UPDATE_SCREENSHOT=1`): a test
// run must not leave the working tree changed. The page is photographed either way.
const SCREENSHOT = process.env.TOOLBRIDGE_UPDATE_SCREENSHOT
  ? fileURLToPath(new URL('../../../docs/dashboard.png', import.meta.url))
  : path.join(tmpdir(), `toolbridge-dashboard-${process.pid}.png`);
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('dashboard agent features in Chromium', () => {
  const tools = dashboardTools();
  let bridge: TestBridge;
  let browser: Chromium;
  let page: Page;
  const requests: Request[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];

  const text = async (selector: string) => (await page.locator(selector).innerText()).replace(/\s+/g, ' ');
  const send = async () => {
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('#chat-status')
      .getByText(/^(Done|Failed)\.$/)
      .waitFor();
  };
  const lastChat = () => requests.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname.startsWith('/chat')).at(-1)!;
  const sessionRows = () => page.locator('table.sessions tbody tr');
  const apiSessions = async () =>
    (
      (await (await bridge.request('/sessions')).json()) as {
        sessions: Array<{ id: string; toolId: string; turns: number; forkedFrom?: string }>;
      }
    ).sessions;

  beforeAll(async () => {
    bridge = await startTestBridge([tools.codex, tools.claude, tools.ollama]);
    browser = await launchChromium({ viewport: { width: 1280, height: 1000 } });
    browser.context.on('request', (r) => requests.push(r));
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.setDefaultTimeout(15_000);
    await page.goto(bridge.url + '/');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  it('tool cards show the transport, the warm processes and their memory from health', async () => {
    const codex = page.getByRole('article', { name: 'Codex', exact: true });
    await codex.getByText('Ready', { exact: true }).waitFor();
    const facts = (await codex.innerText()).replace(/\s+/g, ' ');
    expect(facts).toContain('Transport Warm (a long-lived process answers)');
    expect(facts).toContain('Warm processes 1');
    expect(facts).toContain('Warm memory 187 MB RSS');
    expect(facts).toContain('Idle shutdown after 10 min');
    await expect(page.getByRole('article', { name: 'Claude Code' }).innerText()).resolves.toMatch(/Transport\s+Spawn/);
    await expect(page.getByRole('article', { name: 'Ollama' }).innerText()).resolves.toMatch(/Transport\s+HTTP/);
  });

  it('a streamed agent chat shows its steps as a timeline, one row per step, and the permission level reaches the tool', async () => {
    await page.getByLabel('Tool', { exact: true }).selectOption('codex');
    await expect(page.getByLabel('Permission level').inputValue()).resolves.toBe('read-only');
    await page.getByLabel('Prompt').fill('Run the tests and fix what fails');
    // `full` over HTTP needs a token (this bridge has none): the page shows the bridge's reason.
    await page.getByLabel('Permission level').selectOption('full');
    await send();
    await expect(text('#chat-error')).resolves.toMatch(/^forbidden: permissions "full" is refused: start the bridge with a token/);
    expect(tools.codex.requests).toHaveLength(0);
    await page.getByLabel('Permission level').selectOption('workspace-write');
    await send();
    expect(tools.codex.requests.at(-1)!.permissions).toBe('workspace-write');
    expect(lastChat().postDataJSON()).toMatchObject({ permissions: 'workspace-write', stream: true });

    // cmd-1 came as started, then completed: one row, in its final state.
    const steps = page.locator('#chat-activity li.step');
    await expect(steps.count()).resolves.toBe(6);
    const cmd = page.locator('li.step[data-step="cmd-1"]');
    await expect(cmd.getAttribute('class')).resolves.toContain('status-completed');
    const cmdText = (await cmd.innerText()).replace(/\s+/g, ' ');
    expect(cmdText).toContain('Exit code 1');
    expect(cmdText).toContain('Tests: 1 failed, 11 passed');
    await expect(page.locator('li.step[data-step="edit-1"] .changes').innerText()).resolves.toMatch(/src\/sum\.ts\s+updated/);
    await expect(page.locator('li.step[data-step="plan-1"] .plan li').count()).resolves.toBe(2);
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe(
      'The test failed because `sum()` added one. Fixed; all 12 tests pass.',
    );

    const result = await text('#chat-result');
    expect(result).toContain('Transport warm');
    expect(result).toContain('Permissions workspace-write');
    const sessionId = /Session (tbs_[A-Za-z0-9_-]+)/.exec(result)![1]!;
    expect((await apiSessions()).map((s) => s.id)).toContain(sessionId);
  });

  it('the sessions list shows the chat; its transcript shows role, tool and time', async () => {
    await sessionRows().first().waitFor();
    const row = sessionRows().filter({ hasText: 'Run the tests and fix what fails' });
    await expect(row.innerText()).resolves.toMatch(/codex\s+gpt-5-codex\s+1 turn\s+\d\d:\d\d/);
    await row.getByRole('button').click();
    const messages = page.locator('#session-detail .transcript .message');
    await messages.nth(1).waitFor();
    await expect(messages.count()).resolves.toBe(2);
    await expect(messages.nth(1).locator('.message-head').innerText()).resolves.toMatch(/^assistant\s+codex\s+\d\d:\d\d$/i);
  });

  it('continuing it with another tool sends the sessionId, hands the conversation over, and the transcript shows the change', async () => {
    const before = (await apiSessions()).length;
    await page.getByRole('button', { name: 'Continue in playground' }).click();
    await expect(page.locator('#chat-session').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Tool', { exact: true }).inputValue()).resolves.toBe('codex');
    await page.getByLabel('Tool', { exact: true }).selectOption('claude-code');
    await page.getByLabel('Prompt').fill('Explain the fix');
    await send();
    const sent = lastChat().postDataJSON() as { sessionId: string; messages: unknown[] };
    expect(sent.sessionId).toMatch(/^tbs_/);
    expect(sent.messages).toEqual([{ role: 'user', content: 'Explain the fix' }]);
    // The hand-over carried the first turn to Claude Code.
    const handed = tools.claude.requests.at(-1)!.messages.map((m) => textOf(m));
    expect(handed.join('\n')).toContain('Run the tests and fix what fails');
    expect(await apiSessions()).toHaveLength(before);
    await page.locator('#session-detail .tool-change').waitFor();
    await expect(text('#session-detail .tool-change')).resolves.toMatch(/^Handed over from codex to claude-code/);
    await expect(page.locator('#session-detail .transcript .message').count()).resolves.toBe(4);
    // The list reloads on its own after the answer: wait for its row rather than read it at once.
    await sessionRows()
      .first()
      .filter({ hasText: /claude-code\s*sonnet\s*2 turns/ })
      .waitFor();
  });

  it('fork starts a new session from that point and leaves the original; delete asks first, then removes it', async () => {
    const original = (await apiSessions())[0]!;
    await page.getByRole('button', { name: 'Fork in playground' }).click();
    await expect(page.getByLabel(/Fork: start a new session/).isChecked()).resolves.toBe(true);
    await page.getByLabel('Prompt').fill('Try another way');
    await send();
    expect(lastChat().postDataJSON()).toMatchObject({ sessionId: original.id, fork: true });
    const sessions = await apiSessions();
    const fork = sessions.find((s) => s.forkedFrom === original.id)!;
    expect(fork).toBeDefined();
    expect(sessions.find((s) => s.id === original.id)!.turns).toBe(original.turns);
    // The chat box now continues the fork, no longer forking.
    await expect(page.locator('#chat-session code').innerText()).resolves.toBe(fork.id);
    await expect(page.getByLabel(/Fork: start a new session/).isChecked()).resolves.toBe(false);

    await sessionRows().filter({ hasText: 'Run the tests' }).first().waitFor();
    await page.locator(`tr[data-session="${fork.id}"] button`).click();
    await page.locator('#session-detail').getByText(`Forked from`).waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await apiSessions()).some((s) => s.id === fork.id)).toBe(true);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete session' }).click();
    await page.locator('#sessions-status').getByText('Session deleted.').waitFor();
    expect((await apiSessions()).map((s) => s.id)).toEqual([original.id]);
    // The list reloads after the status line is shown: wait for the row to go rather than look at once.
    await page.locator(`tr[data-session="${fork.id}"]`).waitFor({ state: 'detached' });
    // The chat box held the fork: it starts a new conversation now.
    await expect(page.locator('#chat-session').isHidden()).resolves.toBe(true);
  });

  it('a JSON schema answer shows the object; a bad schema shows the error envelope’s message', async () => {
    await page.getByLabel('Tool', { exact: true }).selectOption('codex');
    await page.getByLabel('JSON schema').fill('{"type": "object", "required": ["city"], "properties": {"city": {"type": 12}}}');
    await page.getByLabel('Prompt').fill('The capital of France');
    await send();
    await expect(text('#chat-error')).resolves.toMatch(/^invalid_request: responseFormat\.schema is not a valid JSON Schema/);
    await page.getByLabel('JSON schema').fill('not json');
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('#chat-error')
      .getByText(/^The JSON schema is not valid JSON/)
      .waitFor();

    // The tool's answer does not match (population is a number): one repair turn, then the 502 with the validation errors.
    await page.getByLabel('JSON schema').fill('{"type": "object", "properties": {"population": {"type": "string"}}}');
    await send();
    await expect(text('#chat-error')).resolves.toMatch(
      /^provider_execution_failed: Codex did not answer with JSON matching the requested schema \(after one repair turn\)/,
    );
    await expect(page.locator('#chat-error .error-details li').allInnerTexts()).resolves.toEqual(['/population: must be string']);

    await page.getByLabel('JSON schema').fill('{"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}');
    await send();
    await expect(page.locator('#chat-object').innerText()).resolves.toBe(JSON.stringify(CITY, null, 2));
    expect(lastChat().postDataJSON()).toMatchObject({ responseFormat: { type: 'json_schema', schema: { required: ['city'] } } });
    await page.getByLabel('JSON schema').fill('');
  });

  it('an attached image reaches the tool as an image part; a too-large one is refused with the limit', async () => {
    const input = page.getByLabel('Images');
    // From a file on disk: a local browser reads the path itself (an 11 MB buffer over the protocol takes seconds).
    const files = await makeTempDir('toolbridge-e2e-images-');
    const huge = path.join(files.dir, 'huge.png');
    await writeFile(huge, Buffer.alloc(11 * 1024 * 1024));
    await input.setInputFiles(huge);
    await files.cleanup();
    await page.locator('#images-error').getByText('huge.png is 11 MB; the bridge takes images up to 10 MB.', { exact: true }).waitFor();
    await input.setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    // Reading the file is asynchronous: wait for its row.
    await page.locator('#images-list li').waitFor();
    await expect(text('#images-list')).resolves.toMatch(/^dot\.png 70 B Remove/);
    await page.getByLabel('Prompt').fill('What is in this picture?');
    await send();
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe('I see 1 image.');
    const parts = tools.codex.requests.at(-1)!.messages.at(-1)!.content;
    expect(parts.find((p) => p.type === 'image')).toMatchObject({ mediaType: 'image/png', data: PNG.toString('base64') });
    await expect(page.locator('#images-list li').count()).resolves.toBe(0);
  });

  it('MCP servers typed as JSON are checked in the page, then sent as mcpServers and reach the agent', async () => {
    const before = requests.length;
    const field = page.getByLabel('MCP servers (JSON)');
    await field.fill('[{"name": "files", "command": "npx", "url": "https://x.example"}]');
    await page.getByLabel('Prompt').fill('List the files');
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('#chat-error')
      .getByText('MCP server 1 ("files") needs exactly one of "command" (a local server) or "url" (a remote one).')
      .waitFor();
    // Refused in the page: nothing was sent.
    expect(requests.slice(before).filter((r) => r.method() === 'POST')).toEqual([]);
    const servers = [{ name: 'files', command: 'npx', args: ['-y', 'files-mcp'], env: { FILES_TOKEN: 't0k3n' } }];
    await field.fill(JSON.stringify(servers));
    await send();
    expect(lastChat().postDataJSON()).toMatchObject({ mcpServers: servers });
    expect(tools.codex.requests.at(-1)!.mcpServers).toEqual(servers);
    await field.fill('');
  });

  it('shows markup in a prompt and an answer as text, offers to continue the answer’s session, and keeps prompts out of the bridge log', async () => {
    const prompt = 'Say <b>hi</b> & <img src=x>';
    await page.getByLabel('Prompt').fill(prompt);
    await send();
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe(`codex heard: ${prompt}`);
    await expect(page.locator('#chat-answer b, #chat-answer img').count()).resolves.toBe(0);
    const row = sessionRows().filter({ hasText: prompt });
    await expect(row.getByRole('button').innerText()).resolves.toBe(prompt);
    await expect(row.locator('b, img').count()).resolves.toBe(0);
    // The answer offers to go on with its session.
    const sessionId = /Session (tbs_[A-Za-z0-9_-]+)/.exec(await text('#chat-result'))![1]!;
    await page.getByRole('button', { name: 'Continue this conversation' }).click();
    await expect(page.locator('#chat-session code').innerText()).resolves.toBe(sessionId);
    await expect(page.locator('#chat-session strong').innerText()).resolves.toBe(prompt);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(page.locator('#chat-session').isHidden()).resolves.toBe(true);
    // A session deleted elsewhere leaves the list on Reload (and keeps the README screenshot tidy).
    expect((await bridge.request(`/sessions/${sessionId}`, { method: 'DELETE' })).status).toBe(204);
    await page.getByRole('button', { name: 'Reload sessions' }).click();
    await row.waitFor({ state: 'detached' });
    const logged = JSON.stringify(bridge.logs);
    expect(logged).not.toContain('Run the tests and fix what fails');
    expect(logged).not.toContain('<b>hi</b>');
  });

  it('broke no CSP rule, loaded nothing from elsewhere, and leaves the README screenshot', async () => {
    // The last view: an agent's answer with its timeline, and the handed-over session open.
    await page.getByLabel('Prompt').fill('Run the tests and fix what fails');
    await send();
    await sessionRows().filter({ hasText: 'claude-code' }).getByRole('button').click();
    await page.locator('#session-detail .tool-change').waitFor();

    const origin = new URL(bridge.url).origin;
    expect(requests.map((r) => r.url()).filter((u) => new URL(u).origin !== origin)).toEqual([]);
    expect(pageErrors).toEqual([]);
    // The 403 of `full`, the 400 of the invalid schema and the 502 of the mismatch are logged by Chromium; nothing else may be.
    expect(consoleErrors.filter((m) => !/status of (400|403|502)/.test(m))).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});
