// Approvals and interrupts on the agents' warm transports (issue 27): the real, pinned `codex
// app-server` and `opencode serve` against their mocks, each chat given a small approval gate and an
// interrupt signal as core gives them. Per agent, medians of 5:
//  1. model's tool call → approval asked: from the mock receiving the request it answers with a
//     shell call to the gate's `ask` (the CLI turning the call into its native request, plus the
//     adapter's mapping and level check);
//  2. decision → action ran: from the gate's answer "allow" to the command's file appearing on disk;
//  3. interrupt → turn ended: from `ctx.interrupt` aborting (the model hanging) to the `result`.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { startRealCodex } from '../packages/adapter-codex/src/testing/real-codex.ts';
import { startRealOpenCode } from '../packages/adapter-opencode/src/testing/real-opencode.ts';
import { testGate, waitFor } from '../packages/test-suite/src/index.ts';
import { median } from './lib/chat-timing.mjs';

const RUNS = 5;

/** Stamp every request the mock records (its `requests` array), to time what follows a model answer. */
function stampRequests(requests) {
  const stamps = [];
  const push = requests.push.bind(requests);
  requests.push = (...items) => {
    for (const _ of items) stamps.push(performance.now());
    return push(...items);
  };
  return stamps;
}

/** Resolves with the time `file` appears (polled every millisecond). */
function appears(file, timeoutMs = 120_000) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (existsSync(file)) {
        clearInterval(timer);
        resolve(performance.now());
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`${file} did not appear`));
      }
    }, 1);
  });
}

/**
 * One agent: `queueCommand(file)` makes the mock answer the next chat with a shell call writing
 * `file` (then a text answer), `queueHang()` makes it hang.
 */
async function measure({ registry, toolId, cwd, control, stamps, queueCommand, queueHang, waitRequest }) {
  const ask = [];
  const run = [];
  const interrupt = [];
  // One warm-up chat: the server starts, the directory is bootstrapped.
  for (let i = -1; i < RUNS; i++) {
    const gate = testGate();
    control.current = { approvals: gate };
    const file = path.join(cwd, `approved-${i + 1}.txt`);
    queueCommand(`echo ok > ${path.basename(file)}`);
    const before = stamps.length;
    const chat = registry.chat(
      toolId,
      { messages: [{ role: 'user', content: 'Run it' }], cwd, permissions: toolId === 'codex' ? 'full' : 'workspace-write' },
      { timeoutMs: 180_000 },
    );
    await gate.nth(0, 180_000);
    // The request the mock answered with the shell call: the last one recorded before the ask.
    const called = stamps
      .slice(before)
      .filter((t) => t <= gate.times[0].askedAt)
      .at(-1);
    const shown = appears(file);
    const decided = performance.now();
    gate.answer({ allow: true });
    const ran = await shown;
    await chat;
    if (i < 0) continue;
    if (called !== undefined) ask.push(gate.times[0].askedAt - called);
    run.push(ran - decided);
  }
  for (let i = -1; i < RUNS; i++) {
    const controller = new AbortController();
    control.current = { interrupt: controller.signal };
    const before = stamps.length;
    queueHang();
    const chat = registry.chat(toolId, { messages: [{ role: 'user', content: 'Wait' }], cwd }, { timeoutMs: 180_000 });
    await waitRequest(before);
    const at = performance.now();
    controller.abort();
    const result = await chat;
    if (result.metadata.finishReason !== 'interrupted') throw new Error(`${toolId}: expected an interrupted turn`);
    if (i >= 0) interrupt.push(performance.now() - at);
  }
  return { ask: median(ask), run: median(run), interrupt: median(interrupt) };
}

async function codex() {
  const control = { current: {} };
  const codex = await startRealCodex({ control: () => control.current });
  const { mock } = codex;
  const stamps = stampRequests(mock.requests);
  try {
    return await measure({
      registry: codex.registry,
      toolId: 'codex',
      cwd: await mkdtemp(path.join(codex.home, 'work-')),
      control,
      stamps,
      queueCommand: (cmd) =>
        mock.queue(
          { kind: 'calls', calls: [{ type: 'function_call', name: 'exec_command', arguments: { cmd } }] },
          { kind: 'reply', text: 'done' },
        ),
      queueHang: () => mock.queue({ kind: 'hang' }),
      waitRequest: (before) => waitFor(() => stamps.length > before, 60_000, 'the model request'),
    });
  } finally {
    await codex.close();
  }
}

async function opencode() {
  const control = { current: {} };
  const oc = await startRealOpenCode(
    { kind: 'steps', steps: [{ text: 'done' }] },
    { opencodeModel: 'mock/mock-model' },
    { control: () => control.current },
  );
  const { mock } = oc;
  const stamps = stampRequests(mock.requests);
  try {
    return await measure({
      registry: oc.registry,
      toolId: 'opencode',
      cwd: await mkdtemp(path.join(oc.home, 'work-')),
      control,
      stamps,
      queueCommand: (command) => {
        mock.behaviour = { kind: 'steps', steps: [{ calls: [{ name: 'bash', args: { command, description: 'run' } }] }, { text: 'done' }] };
      },
      queueHang: () => {
        mock.behaviour = { kind: 'hang' };
      },
      waitRequest: (before) => waitFor(() => stamps.length > before, 60_000, 'the model request'),
    });
  } finally {
    await oc.close();
  }
}

export default async function () {
  const rows = [];
  for (const [name, run] of [
    ['Codex', codex],
    ['OpenCode', opencode],
  ]) {
    const m = await run();
    rows.push(
      { name: `${name}: model's shell call → approval asked (median of ${RUNS})`, value: m.ask, unit: 'ms', digits: 0 },
      { name: `${name}: "allow" → the command's file on disk (median of ${RUNS})`, value: m.run, unit: 'ms', digits: 0 },
      {
        name: `${name}: interrupt → turn ended with the result (median of ${RUNS})`,
        value: m.interrupt,
        unit: 'ms',
        digits: 0,
        target: 2000,
        better: 'lower',
      },
    );
  }
  return rows;
}
