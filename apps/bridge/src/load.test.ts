import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_CLIS, makeFakeMachine, type FakeCli, type FakeMachine } from 'toolbridge/testing';
import { waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { createToolbridge } from 'toolbridge';
import { parseSse } from './testing/harness.js';
import { startServer, type RunningBridge } from './server.js';

/**
 * Many chats at once through the bridge over the real adapters (fake CLIs
 * replaying recorded output, an in-test Ollama), with small limits so the
 * queue fills: every answer is a real one or a clean "busy" refusal, the
 * number of tool processes never exceeds the limits, none is left after, and
 * the bridge is healthy after.
 */
const TOOLS = ['codex', 'claude-code', 'opencode', 'gemini', 'copilot', 'pi', 'qwen-code', 'ollama'] as const;
const BINS: readonly FakeCli[] = FAKE_CLIS;
const LIMIT = { maxConcurrent: 2, maxQueued: 4 };
const TOTAL = 200;
const CLIENTS = 50;

type Outcome = { ok: true } | { ok: false; busy: true } | { ok: false; busy: false; what: string };

describe('bridge under load', () => {
  let machine: FakeMachine;
  let bridge: RunningBridge;

  beforeAll(async () => {
    machine = await makeFakeMachine();
    // Discovery outlives the run (~20 s with six tools on two cores): a probe during it could only be a per-chat probe.
    const toolbridge = createToolbridge({
      env: machine.env,
      config: { ollamaModel: 'llama3.2:1b' },
      concurrency: LIMIT,
      discoveryTtlMs: 120_000,
    });
    bridge = await startServer({ port: 0, toolbridge, logger: false });
  });
  afterAll(async () => {
    await bridge?.close();
    await machine?.cleanup();
  });

  const post = (path: string, body: unknown) =>
    fetch(bridge.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** Chat number `i`: one tool (plain or streamed) or a fallback pair, spread over the six tools. */
  async function chat(i: number): Promise<Outcome> {
    const tool = TOOLS[i % TOOLS.length]!;
    const messages = [{ role: 'user', content: `request ${i}` }];
    const fallback = i % 5 === 4;
    const stream = i % 3 === 1;
    const providers = [tool, TOOLS[(i + 1) % TOOLS.length]!];
    const res = fallback ? await post('/chat', { providers, messages, stream }) : await post(`/chat/${tool}`, { messages, stream });
    const text = await res.text();
    if (res.status === 503) {
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      const retryAfter = Number(res.headers.get('retry-after'));
      if (body.error.code === 'tool_unavailable' && /busy/.test(body.error.message) && Number.isInteger(retryAfter) && retryAfter >= 1) {
        return { ok: false, busy: true };
      }
      return { ok: false, busy: false, what: `503 without a clean busy refusal: ${text} (Retry-After ${res.headers.get('retry-after')})` };
    }
    if (res.status !== 200) return { ok: false, busy: false, what: `${res.status}: ${text.slice(0, 300)}` };
    if (stream) {
      const events = parseSse(text);
      const done = events.at(-1);
      if (done?.event !== 'done' || events.some((e) => e.event === 'error'))
        return { ok: false, busy: false, what: `stream ended badly: ${text.slice(-300)}` };
      return { ok: true };
    }
    const body = JSON.parse(text) as { toolId: string; result?: { message: { content: string } } };
    if (fallback ? !providers.includes(body.toolId as never) : body.toolId !== tool)
      return { ok: false, busy: false, what: `answer from ${body.toolId}` };
    if (!fallback && !body.result?.message.content) return { ok: false, busy: false, what: `empty answer: ${text.slice(0, 300)}` };
    return { ok: true };
  }

  it(`${TOTAL} chats at concurrency ${CLIENTS}: each answered or refused as busy; processes bounded, none left, bridge healthy`, async () => {
    await fetch(`${bridge.url}/discover`); // detection once, as a running bridge would have done
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, machine.livePids().length);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const outcomes: Outcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < TOTAL) outcomes.push(await chat(next++));
      }),
    );
    sampling = false;
    await sampler;

    const failures = outcomes.filter((o): o is Extract<Outcome, { busy: false }> => !o.ok && !o.busy);
    expect(failures.map((f) => f.what)).toEqual([]);
    expect(outcomes).toHaveLength(TOTAL);
    const answered = outcomes.filter((o) => o.ok).length;
    const refused = outcomes.filter((o) => !o.ok && o.busy).length;
    expect(answered + refused).toBe(TOTAL);
    expect(answered).toBeGreaterThan(TOTAL / 4);
    expect(refused).toBeGreaterThan(0); // the limits were reached, so this run tested them

    // The CLI tools, each allowed two processes at once (a fake tool is one process).
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(BINS.length * LIMIT.maxConcurrent);

    await waitFor(() => machine.livePids().length === 0, 5000, 'every tool process to end');
    // One tool run per answered chat: a refused chat started nothing.
    let toolRuns = machine.ollama.chats.length;
    for (const bin of BINS) {
      const runs = await machine.runs(bin);
      expect(await waitForPidsGone(runs.map((r) => r.pid))).toEqual([]);
      // No per-chat probes: chats reuse the discovery and login state the bridge already has.
      expect(runs.filter((r) => r.argv[0] === '--version').length).toBeLessThanOrEqual(2);
      expect(runs.filter((r) => r.argv[0] === 'login' || r.argv[0] === 'auth').length).toBe(0);
      // A chat's run: each tool's one-shot command (Pi's `--mode json`; its `--mode rpc` start is refused by the fake).
      const isChat = (argv: readonly string[]) =>
        ['exec', '-p', 'run', '--output-format', '--output-format=json'].includes(argv[0]!) || (argv[0] === '--mode' && argv[1] === 'json');
      const chats = runs.filter((r) => isChat(r.argv)).length;
      expect(chats).toBeGreaterThan(0);
      toolRuns += chats;
    }
    expect(toolRuns).toBe(answered);

    const health = await fetch(`${bridge.url}/health?refresh=true`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as { tools: Array<{ toolId: string; status: string; load: { active: number; queued: number } }> };
    expect(body.tools.map((t) => [t.toolId, t.status, t.load.active, t.load.queued])).toEqual(TOOLS.map((t) => [t, 'healthy', 0, 0]));
    expect(await chat(0)).toEqual({ ok: true });
  }, 120_000);
});
