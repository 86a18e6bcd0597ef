import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FAKE_CLIS, makeFakeMachine, type FakeCli, type FakeMachine } from 'toolbridge/testing';
import { waitFor } from '@toolbridge/test-suite/kit';
import { createToolbridge } from 'toolbridge';
import { startServer, type RunningBridge } from './server.js';

/**
 * Every way a chat can end must end the tool's whole process group: the fake
 * tools here hang with a helper child of their own (`hang-tree`), so a kill of
 * the tool alone would leave the helper behind. Each path runs many chats at
 * once; afterwards no process with the fake machine's environment may remain.
 */
const AGENTS = ['codex', 'claude-code', 'opencode', 'gemini', 'copilot'] as const;
const BINS: readonly FakeCli[] = FAKE_CLIS;
const messages = [{ role: 'user', content: 'never answered' }];

describe('no orphans, whatever ends the chat', () => {
  let machine: FakeMachine;
  let bridge: RunningBridge;

  beforeEach(async () => {
    machine = await makeFakeMachine();
    for (const bin of BINS) await machine.setMode(bin, 'hang-tree');
    const toolbridge = createToolbridge({ env: machine.env, concurrency: { maxConcurrent: 4, maxQueued: 8 } });
    bridge = await startServer({ port: 0, toolbridge, logger: false, closeGraceMs: 1000 });
  });
  afterEach(async () => {
    await bridge.close();
    await machine.cleanup();
  });

  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    fetch(bridge.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

  /** Tools and their helpers running now (two processes a chat): the helpers prove the whole group is reached. */
  const running = () => machine.livePids().length;
  const settled = () => waitFor(() => running() === 0, 8000, 'every tool process and helper to end');

  it('timeouts: 12 chats past their deadline answer 504 and leave nothing', async () => {
    const res = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2
          ? post(`/chat/${AGENTS[i % AGENTS.length]}`, { messages, timeoutMs: 1500 })
          : post('/chat', { providers: [AGENTS[i % AGENTS.length]], messages, perAttemptTimeoutMs: 1500 }),
      ),
    );
    for (const r of res) {
      expect(r.status).toBe(504);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('timeout');
    }
    await settled();
  }, 30_000);

  it('client disconnects: 12 plain and streamed chats whose callers go away leave nothing', async () => {
    const controller = new AbortController();
    const calls = Array.from({ length: 12 }, (_, i) =>
      post(`/chat/${AGENTS[i % AGENTS.length]}`, { messages, stream: i % 2 === 0 }, controller.signal).catch((e: unknown) => e),
    );
    await waitFor(() => running() >= 24, 10_000, 'the tools and their helpers to start');
    controller.abort();
    for (const r of await Promise.all(calls)) expect(r).toMatchObject({ name: 'AbortError' });
    await settled();
  }, 30_000);

  it('abort of a queued chat starts nothing; the running ones end with their callers', async () => {
    // 5 tools × 4 running + 2 queued each: the queue is used, and left by callers who go away.
    const slots = AGENTS.length * 4;
    const controller = new AbortController();
    const calls = Array.from({ length: 30 }, (_, i) =>
      post(`/chat/${AGENTS[i % AGENTS.length]}`, { messages }, controller.signal).catch((e: Error) => e),
    );
    await waitFor(() => running() >= slots * 2, 15_000, 'every slot to be in use');
    controller.abort();
    await Promise.all(calls);
    await settled();
    // Only the 20 chats that held slots ever ran: the 10 queued ones left without starting a tool.
    // (Codex and OpenCode try their warm `app-server` / `serve` first, Gemini and Copilot their
    // `--acp` mode, Pi its `--mode rpc`, which the fakes refuse at once: those are no chat's runs.)
    const warmStart = (argv: readonly string[]) =>
      ['app-server', 'serve'].includes(argv[0]!) || argv.includes('--acp') || (argv[0] === '--mode' && argv[1] === 'rpc');
    const runs = (await Promise.all(BINS.map((b) => machine.runs(b)))).flat().filter((r) => !warmStart(r.argv));
    expect(runs.length).toBe(slots);
  }, 30_000);

  it('server close(): in-flight chats are answered 503 or cut, and their processes end', async () => {
    const calls = Array.from({ length: 12 }, (_, i) =>
      post(
        // The first three agents only: with the fallback chats on OpenCode every chat still gets a slot at once.
        i % 3 === 2 ? '/chat' : `/chat/${AGENTS[i % 3]}`,
        i % 3 === 2 ? { providers: ['opencode'], messages } : { messages, stream: i % 2 === 0 },
      ).then(
        async (r) => ({ status: r.status, text: await r.text().catch(() => '') }),
        (e: Error) => e,
      ),
    );
    await waitFor(() => running() >= 24, 10_000, 'the tools and their helpers to start');
    await bridge.close();
    expect(running()).toBe(0); // close() resolves only once the tools are gone
    for (const r of await Promise.all(calls)) {
      if (r instanceof Error) continue; // a streamed response cut mid-way
      expect(r.status).toBe(503);
      expect(r.text).toContain('shutting down');
    }
  }, 30_000);

  it('a tool that prints without end is cut off with 502 provider_execution_failed, and ends', async () => {
    await machine.setMode('codex', 'flood');
    const res = await post('/chat/codex', { messages });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'provider_execution_failed', message: 'codex produced more than 33554432 bytes of output' });
    await settled();
    // 32 MiB through the parser: ~5 s alone, over 60 s once when the whole suite loaded the machine.
  }, 180_000);
});
