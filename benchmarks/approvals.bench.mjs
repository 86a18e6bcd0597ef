// Approvals and interrupts (issue 27).
//  1. Core's broker, generic for every adapter (an in-memory tool that asks through ctx.approvals):
//     the adapter's ask() to the caller's `approval` event, and the caller's decision to the
//     adapter running the action.
//  2. Claude Code, the real pinned `claude` (warm stream-json process) against the mock Messages
//     API, in a throwaway HOME: the model's tool call sent to the `approval` event (Claude Code's
//     own `can_use_tool` round included), the decision to the command running (the command
//     stamps the time it starts), and interrupt(sessionId) to the turn's `result`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRegistry } from '../packages/core/src/runtime.ts';
import { agentScript } from '../packages/adapter-claude-code/src/testing/mock-scripts.ts';
import { startMockAnthropic } from '../packages/adapter-claude-code/src/testing/mock-anthropic.ts';
import { realClaudeRegistry } from '../packages/adapter-claude-code/src/testing/real.ts';
import { median } from './lib/chat-timing.mjs';
import { makeTempDir } from '../packages/test-suite/src/index.ts';

const RUNS = 7;

/** A tool that asks once per chat, stamping when it asks and when its answer arrives. */
function askingTool(stamps) {
  return {
    specificationVersion: 'v1',
    id: 'asker',
    name: 'Asker',
    type: 'agent',
    capabilities: [],
    features: { approvals: true },
    configSchema: {},
    detect: async () => ({ available: true, models: [] }),
    async *stream(_request, ctx) {
      stamps.asked = performance.now();
      await ctx.approvals.ask({ kind: 'command', title: 'Run true', command: 'true' });
      stamps.running = performance.now();
      yield { type: 'result', result: { message: { role: 'assistant', content: 'ok' }, usage: {}, metadata: {} } };
    },
  };
}

async function brokerTimes() {
  const home = await makeTempDir('toolbridge-bench-approvals-');
  const stamps = {};
  const registry = createRegistry({ adapters: [askingTool(stamps)], env: { HOME: home.dir }, sessions: { dir: path.join(home.dir, 's') } });
  const toEvent = [];
  const toAction = [];
  try {
    for (let i = 0; i < RUNS + 2; i++) {
      let decided = 0;
      for await (const e of registry.stream('asker', { messages: [{ role: 'user', content: 'go' }], approvals: 'ask' })) {
        if (e.type !== 'approval') continue;
        if (i >= 2) toEvent.push(performance.now() - stamps.asked);
        decided = performance.now();
        registry.approvals.decide(e.approval.id, { decision: 'allow' });
      }
      if (i >= 2) toAction.push(stamps.running - decided);
    }
  } finally {
    await registry.close();
    await home.cleanup();
  }
  return { toEvent: median(toEvent), toAction: median(toAction) };
}

async function claudeTimes() {
  const mock = await startMockAnthropic();
  const tmp = await makeTempDir('toolbridge-bench-claude-approvals-');
  const { registry } = await realClaudeRegistry(mock.url, path.join(tmp.dir, 'home'));
  const cwd = tmp.dir;
  const toEvent = [];
  const toAction = [];
  const interrupts = [];
  try {
    for (let i = 0; i < RUNS + 1; i++) {
      const stamp = path.join(cwd, `started-${i}`);
      let toolCallSent = 0;
      const steps = agentScript([{ name: 'Bash', input: { command: `date +%s%N > ${stamp}`, description: 'Stamp' } }]);
      mock.behavior = {
        mode: 'script',
        script: (body, index) => {
          const reply = steps(body, index);
          if (reply.blocks?.some((b) => b.type === 'tool_use')) toolCallSent = performance.now();
          return reply;
        },
      };
      let decidedAt = 0;
      const request = { messages: [{ role: 'user', content: 'Stamp.' }], cwd, permissions: 'workspace-write', approvals: 'ask' };
      for await (const e of registry.stream('claude-code', request, { timeoutMs: 120_000 })) {
        if (e.type !== 'approval') continue;
        if (i > 0) toEvent.push(performance.now() - toolCallSent);
        decidedAt = Date.now(); // wall clock, as the command's `date` stamps it
        registry.approvals.decide(e.approval.id, { decision: 'allow' });
      }
      const startedNs = BigInt((await readFile(stamp, 'utf8')).trim());
      if (i > 0) toAction.push(Number(startedNs / 1_000_000n) - decidedAt);
    }

    mock.behavior = { mode: 'ok', text: 'first' };
    const first = await registry.chat('claude-code', { messages: [{ role: 'user', content: 'hi' }] }, { timeoutMs: 120_000 });
    for (let i = 0; i < 5; i++) {
      mock.behavior = {
        mode: 'script',
        script: () => ({ blocks: [{ type: 'text', text: 'slow answer', pieces: ['slow', ' answer'] }], pieceDelayMs: 30_000 }),
      };
      let asked = 0;
      let ended = 0;
      for await (const e of registry.stream('claude-code', { messages: [{ role: 'user', content: 'talk' }], sessionId: first.sessionId })) {
        if (e.type === 'delta' && asked === 0) {
          asked = performance.now();
          await registry.interrupt(first.sessionId);
        }
        if (e.type === 'result') {
          ended = performance.now();
          if (e.result.metadata.finishReason !== 'interrupted') throw new Error('the turn was not interrupted');
        }
      }
      interrupts.push(ended - asked);
    }
  } finally {
    await registry.close();
    await mock.close();
    await tmp.cleanup();
  }
  return { toEvent: median(toEvent), toAction: median(toAction), interrupt: median(interrupts) };
}

export default async function () {
  const broker = await brokerTimes();
  const claude = await claudeTimes();
  return [
    {
      name: 'Core: adapter asks → `approval` event (median of 7)',
      value: broker.toEvent,
      unit: 'ms',
      digits: 2,
      target: 5,
      better: 'lower',
    },
    {
      name: 'Core: decision → the adapter runs the action (median of 7)',
      value: broker.toAction,
      unit: 'ms',
      digits: 2,
      target: 5,
      better: 'lower',
    },
    { name: 'Claude Code: model’s tool call sent → `approval` event, warm (median of 7)', value: claude.toEvent, unit: 'ms', digits: 0 },
    { name: 'Claude Code: decision → the command starts, warm (median of 7)', value: claude.toAction, unit: 'ms', digits: 0 },
    {
      name: 'Claude Code: interrupt → the turn’s result, warm (median of 5)',
      value: claude.interrupt,
      unit: 'ms',
      digits: 0,
      target: 2000,
      better: 'lower',
    },
  ];
}
