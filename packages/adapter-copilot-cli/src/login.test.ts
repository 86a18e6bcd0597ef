import { afterEach, describe, expect, it } from '@jest/globals';
import type { CallContext } from '@toolbridge/core';
import { waitForPidsGone } from '@toolbridge/test-suite/kit';
import { createCopilotCliAdapter } from './adapter.js';
import { fakeCopilotEnv, REPLAYS, type FakeCopilot } from './testing/fake-copilot.js';

const fakes: FakeCopilot[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.cleanup();
});

describe('copilot login (fake replaying the real device flow)', () => {
  it('relays the verification URL and the device code, keeps one login open, and ends it on dispose', async () => {
    const fake = await fakeCopilotEnv(REPLAYS.ok);
    fakes.push(fake);
    const adapter = createCopilotCliAdapter();
    const ctx: CallContext = { config: {}, env: fake.env, signal: AbortSignal.timeout(20_000) };
    // An open login would otherwise run until its TTL when an assertion fails.
    fakes.push({ ...fake, cleanup: () => adapter.dispose!() });
    const started = await adapter.startAuth!(ctx);
    expect(started).toMatchObject({
      toolId: 'copilot',
      status: 'started',
      authenticated: false,
      command: 'copilot login',
      url: 'http://127.0.0.1:PORT/login/device',
      output: expect.stringContaining('enter code ABCD-1234'),
    });
    expect(started.instructions).toMatch(/enter the code ABCD-1234/);
    expect(started.output).not.toMatch(/clipboard/);
    const again = await adapter.startAuth!(ctx);
    expect(again).toMatchObject({ status: 'in_progress', url: started.url, instructions: started.instructions });
    const runs = await fake.runs();
    expect(runs.map((r) => r.argv)).toEqual([['login']]);
    await adapter.dispose!();
    expect(await waitForPidsGone(runs.map((r) => r.pid))).toEqual([]);
  });

  it('does not start a login when Copilot can already run', async () => {
    const fake = await fakeCopilotEnv(REPLAYS.ok);
    fakes.push(fake);
    const adapter = createCopilotCliAdapter();
    const ctx: CallContext = { config: {}, env: { ...fake.env, GH_TOKEN: 't' }, signal: AbortSignal.timeout(20_000) };
    expect(await adapter.startAuth!(ctx)).toMatchObject({ status: 'already_authenticated', authenticated: true });
    expect(await fake.runs()).toEqual([]);
  });
});
