import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';
import { launchChromium, type Chromium } from './testing/chromium.js';
import { startTestBridge, type TestBridge } from './testing/harness.js';

/**
 * Approvals and interrupts in the dashboard, in a real headless Chromium, over a scripted agent
 * that asks before a command (as an adapter does through `ctx.approvals`) and then, continued,
 * talks until it is interrupted. The steps share one page and run in order.
 */
describe('dashboard approvals and interrupt in Chromium', () => {
  const agent = scriptedAdapter('agent', {
    name: 'Asking agent',
    features: { approvals: true },
    script: [
      { deltas: ['Tests ', 'pass.'], asks: [{ kind: 'command', title: 'Run npm test', command: 'npm test', cwd: '/srv/app' }] },
      { deltas: ['So far,'], hang: true },
      { deltas: ['Back.'] },
    ],
  });
  let bridge: TestBridge;
  let browser: Chromium;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    bridge = await startTestBridge([agent]);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.setDefaultTimeout(15_000);
    await page.goto(bridge.url + '/');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  it('shows a pending approval with its command; Allow lets the action run and the chat finish', async () => {
    await page.getByLabel('Tool', { exact: true }).selectOption('agent');
    await page.getByLabel('Ask before each command or file change').check();
    await page.getByLabel('Prompt').fill('Run the tests');
    await page.getByRole('button', { name: 'Send' }).click();
    const approval = page.getByRole('article', { name: 'Run npm test' });
    await approval.waitFor();
    await expect(approval.locator('pre').innerText()).resolves.toBe('$ npm test\nin /srv/app');
    await expect(page.locator('#chat-status').innerText()).resolves.toBe('Waiting for your approval: Run npm test');
    expect(((await (await bridge.request('/approvals')).json()) as { approvals: unknown[] }).approvals).toHaveLength(1);
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.locator('#chat-status').getByText('Done.', { exact: true }).waitFor();
    expect(agent.calls[0]!.answers).toEqual([{ allow: true }]);
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe('Tests pass.');
    await expect(page.locator('#approvals').isHidden()).resolves.toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('Interrupt ends a running turn of the session with the text so far; the session goes on', async () => {
    await page.getByRole('button', { name: 'Continue this conversation' }).click();
    await page.getByLabel('Prompt').fill('Keep talking');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#chat-answer').getByText('So far,').waitFor();
    const interrupt = page.getByRole('button', { name: 'Interrupt' });
    await expect(interrupt.isEnabled()).resolves.toBe(true);
    await interrupt.click();
    const status = page.locator('#chat-status');
    // On a miss, say what the page showed instead (a failed interrupt, or a turn that ended "Done.").
    await status
      .getByText('Interrupted. The session goes on.')
      .waitFor()
      .catch(async (e: Error) => {
        throw new Error(`${e.message}\nthe status read: ${JSON.stringify(await status.innerText())}`);
      });
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe('So far,');
    await expect(interrupt.isDisabled()).resolves.toBe(true);
    // The next message continues the same session.
    await page.getByLabel('Prompt').fill('Go on');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#chat-status').getByText('Done.', { exact: true }).waitFor();
    await expect(page.locator('#chat-answer').innerText()).resolves.toBe('Back.');
    const sessions = ((await (await bridge.request('/sessions')).json()) as { sessions: Array<{ turns: number }> }).sessions;
    expect(sessions).toEqual([expect.objectContaining({ turns: 3 })]);
    expect(pageErrors).toEqual([]);
  });
});
