import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { makeFakeMachine, type FakeMachine } from 'toolbridge/testing';
import { waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { createToolbridge } from 'toolbridge';
import { startServer, type RunningBridge } from './server.js';
import { launchChromium, type Chromium } from './testing/chromium.js';

/**
 * The dashboard in a real headless Chromium against the bridge over the four
 * real adapters: fake `codex` and `claude` on PATH replaying recorded output
 * (OpenCode left uninstalled), an in-test Ollama, and a bridge token. The
 * steps share one page and run in order, like a person would click through.
 */

const TOKEN = 'tb_e2e_dashboard_token_0123';
const MIN = 60_000;

/** A Codex session log with a token_count event carrying rate limits, resetting in the future (so the test never goes stale). */
async function seedCodexUsage(codexHome: string, now: number): Promise<void> {
  const d = new Date(now);
  const day = [String(d.getUTCFullYear()), String(d.getUTCMonth() + 1).padStart(2, '0'), String(d.getUTCDate()).padStart(2, '0')];
  const dir = path.join(codexHome, 'sessions', ...day);
  await mkdir(dir, { recursive: true });
  const line = {
    timestamp: d.toISOString(),
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: null,
      rate_limits: {
        primary: { used_percent: 42.5, window_minutes: 300, resets_at: Math.floor((now + 130 * MIN + 29_000) / 1000) },
        secondary: { used_percent: 7, window_minutes: 10080, resets_at: Math.floor((now + 5 * 24 * 60 * MIN) / 1000) },
        plan_type: 'plus',
      },
    },
  };
  await writeFile(path.join(dir, `rollout-${d.toISOString().slice(0, 19).replace(/:/g, '-')}-e2e.jsonl`), JSON.stringify(line) + '\n');
}

describe('dashboard in Chromium', () => {
  let machine: FakeMachine;
  let bridge: RunningBridge;
  let browser: Chromium;
  let page: Page;
  const requests: Request[] = [];
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];

  const card = (name: string) => page.getByRole('article', { name, exact: true });
  const apiGet = (p: string) => fetch(bridge.url + p, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());

  beforeAll(async () => {
    machine = await makeFakeMachine({ bins: ['codex', 'claude', 'gemini'] });
    await machine.setMode('claude', 'logged_out');
    await seedCodexUsage(machine.env.CODEX_HOME!, Date.now());
    const toolbridge = createToolbridge({ env: machine.env, config: { ollamaModel: 'llama3.2:1b' }, discoveryTtlMs: 0 });
    bridge = await startServer({ port: 0, token: TOKEN, toolbridge, logger: false });
    browser = await launchChromium();
    browser.context.on('request', (r) => requests.push(r));
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.setDefaultTimeout(15_000);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
    await machine?.cleanup();
  });

  it('asks for the token, keeps it in session storage only, then shows the six tools in their states', async () => {
    await page.goto(bridge.url + '/');
    await expect(page.getByRole('heading', { name: 'This bridge needs its token' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('#token-message').textContent()).resolves.toContain('started with a token');
    await page.getByLabel('Bridge token').fill(TOKEN);
    await page.getByRole('button', { name: 'Continue' }).click();

    await card('Codex').getByText('Ready', { exact: true }).waitFor();
    await card('Ollama').getByText('Ready', { exact: true }).waitFor();
    const codex = (await card('Codex').innerText()).replace(/\s+/g, ' ');
    expect(codex).toContain('Logged in');
    expect(codex).toMatch(/Version \S*0\.169\.0/);

    const claude = card('Claude Code');
    await expect(claude.locator('.badge').innerText()).resolves.toBe('Not logged in');
    await expect(claude.getByRole('button', { name: 'Log in' }).isVisible()).resolves.toBe(true);

    const opencode = card('OpenCode');
    await expect(opencode.locator('.badge').innerText()).resolves.toBe('Not installed');
    await expect(opencode.locator('.reason').innerText()).resolves.toMatch(/not installed/i);
    await expect(opencode.locator('pre.command').innerText()).resolves.toBe('npm i -g opencode-ai');

    await card('Gemini CLI').getByText('Ready', { exact: true }).waitFor();
    const gemini = (await card('Gemini CLI').innerText()).replace(/\s+/g, ' ');
    expect(gemini).toContain('Logged in');
    expect(gemini).toMatch(/Version \S*0\.61\.0/);
    const copilot = card('Copilot CLI');
    await expect(copilot.locator('.badge').innerText()).resolves.toBe('Not installed');
    await expect(copilot.locator('pre.command').innerText()).resolves.toBe('npm i -g @github/copilot');

    const ollama = (await card('Ollama').innerText()).replace(/\s+/g, ' ');
    expect(ollama).toContain('No login needed');
    expect(ollama).toMatch(/llama3\.2:1b default/);
    expect(ollama).toContain('qwen3:14b');

    expect(await page.evaluate<string | null>("sessionStorage.getItem('toolbridge.token')")).toBe(TOKEN);
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);
    expect(requests.filter((r) => r.url().includes(TOKEN))).toEqual([]);
    // The first call went without a token and got the prompt; the calls after it carry the token in the header.
    const discovers = requests.filter((r) => new URL(r.url()).pathname === '/discover');
    expect(await discovers[0]!.headerValue('authorization')).toBeNull();
    expect(await discovers.at(-1)!.headerValue('authorization')).toBe(`Bearer ${TOKEN}`);
  });

  it('draws the Codex usage windows as progress bars with the reset time', async () => {
    const five = card('Codex').getByRole('progressbar', { name: '5-hour window' });
    await expect(five.getAttribute('aria-valuenow')).resolves.toBe('42.5');
    await expect(five.getAttribute('aria-valuetext')).resolves.toMatch(/^42\.5% used, resets in 2 h 1\d min$/);
    await expect(five.locator('.fill').getAttribute('style')).resolves.toBe('width: 42.5%;');
    await expect(card('Codex').getByRole('progressbar', { name: '7-day window' }).getAttribute('aria-valuenow')).resolves.toBe('7');
    const usage = (await card('Codex').locator('.usage').innerText()).replace(/\s+/g, ' ');
    expect(usage).toContain('plan plus');
    // The reset is shown as a time of day, with the date in front when it falls on another day (after midnight).
    expect(usage).toMatch(/57\.5% left · resets (\w{3} \d{1,2} \w{3}, )?\d\d:\d\d \(in 2 h 1\d min\)/);
  });

  it('the playground streams an answer from one tool and shows model, token usage and latency', async () => {
    await page.getByLabel('Tool', { exact: true }).selectOption('ollama');
    await page.getByLabel('Prompt').fill('Say hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#chat-status').getByText('Done.').waitFor();
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe('Hello from ollama');
    const result = (await page.locator('#chat-result').innerText()).replace(/\s+/g, ' ');
    expect(result).toContain('Model llama3.2:1b');
    expect(result).toMatch(/Latency \d+(\.\d)? (ms|s)/);
    expect(result).toMatch(/Token usage .*input \d+/);
    const chat = requests.find((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/chat/ollama')!;
    // The permission level is always sent as shown (read-only unless the user picks another).
    expect(chat.postDataJSON()).toEqual({ messages: [{ role: 'user', content: 'Say hello' }], stream: true, permissions: 'read-only' });
  });

  it('Stop aborts a running chat and the bridge ends the tool process', async () => {
    await machine.setMode('codex', 'hang');
    await page.getByLabel('One tool').check();
    await page.getByLabel('Tool', { exact: true }).selectOption('codex');
    await page.getByRole('button', { name: 'Send' }).click();
    await waitFor(async () => (await machine.runs('codex')).some((r) => r.mode === 'hang'), 10_000, 'codex to start');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page
      .locator('#chat-status')
      .getByText(/^Stopped/)
      .waitFor();
    const pids = (await machine.runs('codex')).filter((r) => r.mode === 'hang').map((r) => r.pid);
    expect(await waitForPidsGone(pids, 8_000)).toEqual([]);
    await expect(page.getByRole('button', { name: 'Send' }).isEnabled()).resolves.toBe(true);
    await machine.setMode('codex', 'ok');
  });

  it('a fallback list in the chosen order falls back from the logged-out Claude Code to Ollama, with the attempts', async () => {
    await page.getByLabel('Fallback list').check();
    await expect(page.getByLabel('Tool', { exact: true }).isHidden()).resolves.toBe(true);
    const list = page.locator('#fallback-list');
    await list.getByRole('checkbox', { name: 'Codex' }).uncheck();
    await list.getByRole('checkbox', { name: 'Gemini CLI' }).uncheck();
    // Move Ollama above Copilot CLI (unticked, not installed): the order sent must follow the list.
    await list.getByRole('button', { name: 'Move Ollama up' }).click();
    // The list was re-rendered; the keyboard user's focus stays on the same button.
    expect(await page.evaluate<string | null>("document.activeElement.getAttribute('aria-label')")).toBe('Move Ollama up');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#chat-status').getByText('Done.').waitFor();
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe('Hello from ollama');
    const chat = requests.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/chat').at(-1)!;
    expect(chat.postDataJSON()).toMatchObject({ providers: ['claude-code', 'ollama'] });
    const rows = await page
      .locator('table.attempts tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows[0]!.slice(0, 1)).toEqual(['claude-code']);
    expect(rows[0]![3]).toMatch(/failed|skipped/);
    expect(rows.at(-1)!.slice(0, 4)).toEqual(['ollama', '1', 'execution', 'succeeded']);
    await expect(page.locator('#chat-result').innerText()).resolves.toMatch(/Fallback used\s+yes/);
  });

  it('shows a config error from the API inline, then saves a valid value', async () => {
    const turns = page.getByLabel('claudeCodeMaxTurns');
    await expect(page.getByLabel('ollamaModel').inputValue()).resolves.toBe('llama3.2:1b');
    await expect(page.getByLabel('codexSandbox').locator('option').allTextContents()).resolves.toEqual([
      '(not set)',
      'read-only',
      'workspace-write',
      'danger-full-access',
    ]);
    await turns.fill('many');
    await page.getByRole('button', { name: 'Save config' }).click();
    const alert = page.locator('#config-form [role="alert"]');
    await alert.getByText(/claudeCodeMaxTurns/).waitFor();
    await expect(alert.innerText()).resolves.toBe('config key "claudeCodeMaxTurns" must be an integer');
    await expect(turns.getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await apiGet('/config')).toEqual({ config: { ollamaModel: 'llama3.2:1b' } });

    await turns.fill('3');
    await page.getByRole('button', { name: 'Save config' }).click();
    await page
      .locator('#config-status')
      .getByText(/^Saved 2 settings/)
      .waitFor();
    await expect(alert.innerText()).resolves.toBe('');
    expect(await apiGet('/config')).toEqual({ config: { ollamaModel: 'llama3.2:1b', claudeCodeMaxTurns: 3 } });
  });

  it('Refresh sees Codex logged out; Log in shows the command, the instructions and a safe sign-in link', async () => {
    await machine.setMode('codex', 'logged_out');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await card('Codex').locator('.badge').getByText('Not logged in').waitFor();
    expect(requests.some((r) => r.url().endsWith('/health?refresh=true'))).toBe(true);

    // From the keyboard: the button keeps the focus while the cards re-render.
    await card('Codex').getByRole('button', { name: 'Log in' }).focus();
    await page.keyboard.press('Enter');
    const login = card('Codex').locator('.login');
    await login.getByText('Login started.').waitFor();
    expect(await page.evaluate<string | null>("document.activeElement.getAttribute('data-focus-key')")).toBe('login-codex');
    await expect(login.locator('code.command-inline').innerText()).resolves.toBe('codex login');
    // The OAuth URL (hundreds of characters) reads as a short link inside the instructions.
    await expect(login.locator('.instructions').innerText()).resolves.toMatch(
      /^Open auth\.openai\.com\/oauth\/authorize… in a browser on this machine/,
    );
    await expect(login.locator('.instructions a').getAttribute('href')).resolves.toMatch(
      /^https:\/\/auth\.openai\.com\/oauth\/authorize\?response_type=code&/,
    );
    const link = login.getByRole('link', { name: 'Open the sign-in page (auth.openai.com)' });
    await expect(link.getAttribute('href')).resolves.toMatch(/^https:\/\/auth\.openai\.com\/oauth\/authorize\?/);
    await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    await expect(link.getAttribute('target')).resolves.toBe('_blank');
    const auth = requests.find((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/auth/codex')!;
    expect(auth.postDataJSON()).toEqual({});
  });

  it('a refused token brings the token prompt back with the reason', async () => {
    await page.evaluate("sessionStorage.setItem('toolbridge.token', 'not-the-token')");
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('heading', { name: 'This bridge needs its token' }).waitFor();
    await expect(page.locator('#token-message').innerText()).resolves.toBe(
      'The bridge did not accept the token (the bearer token is not valid). Enter it again.',
    );
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('token-input');
    await expect(page.locator('#content').isHidden()).resolves.toBe(true);
    await page.getByLabel('Bridge token').fill(TOKEN);
    await page.getByLabel('Bridge token').press('Enter');
    await card('Ollama').getByText('Ready', { exact: true }).waitFor();
    await page
      .locator('#refresh-status')
      .getByText(/^Updated at/)
      .waitFor();
  });

  it('the Usage section plots the windows over time, tokens per tool per day and chats by outcome as inline SVG', async () => {
    await page.getByRole('button', { name: 'Reload usage' }).click();
    const section = page.locator('#usage');
    const codex = section.getByRole('img', { name: 'codex usage windows, % used' });
    await codex.waitFor();
    // Both Codex windows as lines (one snapshot each: a point), with their reset markers.
    await expect(codex.locator('g.series').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-label')))).resolves.toEqual([
      'five_hour',
      'seven_day',
    ]);
    await expect(codex.locator('line.marker').count()).resolves.toBeGreaterThanOrEqual(1);
    const outcomes = section.getByRole('img', { name: 'Chats by outcome' });
    const titles = await outcomes.locator('rect title').allTextContents();
    const usage = (await apiGet('/usage')) as { groups: Array<{ key: string; succeeded: number; failed: number }> };
    const expected = usage.groups.flatMap((g) => [
      ...(g.succeeded ? [`${g.key} · succeeded: ${g.succeeded}`] : []),
      ...(g.failed ? [`${g.key} · failed: ${g.failed}`] : []),
    ]);
    expect(expected.length).toBeGreaterThan(0);
    expect(titles).toEqual(expected);
    const tokens = section.getByRole('img', { name: 'Tokens per tool per day' });
    await expect(tokens.locator('g.bar').count()).resolves.toBe(7);
    await expect(tokens.locator('rect').count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('#usage-status').textContent()).resolves.toMatch(/chats? in the last 7 days/);
  });

  it('loaded nothing from any other origin and broke no CSP rule', async () => {
    const origin = new URL(bridge.url).origin;
    expect(requests.map((r) => r.url()).filter((u) => new URL(u).origin !== origin)).toEqual([]);
    expect(pageErrors).toEqual([]);
    // The 400 of the invalid config and the 401 of the wrong token are logged by Chromium; nothing else may be.
    expect(consoleErrors.filter((m) => !/Failed to load resource: the server responded with a status of (400|401)/.test(m))).toEqual([]);
  });
});
