/**
 * A whole adapter for a fifth tool, `echo-agent`, a fake CLI: what someone adding a real tool
 * writes, and nothing more. Core, the test kit and the dashboard are not touched to add it.
 * `echo-agent --version` prints `echo-agent 1.4.2`; `echo-agent run [--model m]` reads the prompt
 * on stdin and prints JSONL: `{"type":"step","id","command"}`, `{"type":"text","text"}`,
 * `{"type":"done","usage":{"in","out"}}` or `{"type":"error","status","message"}`.
 */
import { ProviderExecutionError, type ChatResult, type StreamEvent, type ToolAdapter, type ToolbridgeError } from '@toolbridge/core';
import { adapterConfig } from '../config.js';
import { defineAdapter } from '../define.js';
import { classifyFailure, type FailureTable } from '../failure-table.js';
import { probeVersion } from '../probe.js';
import { spawnTurn } from '../spawn-turn.js';
import { parseJsonLine, renderConversation } from '../text.js';

const config = adapterConfig('echo-agent', { model: { type: 'string', minLength: 1, description: 'Model for echo-agent (`--model`)' } });

/** Its failures as data: the status of its own error event → the error class (the kit makes the typed error). */
const failures: FailureTable = {
  name: 'Echo Agent',
  toolId: 'echo-agent',
  rules: [
    { class: 'auth', status: [401, 403] },
    { class: 'rate_limit', status: [429] },
    { class: 'transient', when: (f) => (f.status ?? 0) >= 500 },
  ],
};

/** Its JSONL events, folded: steps and text as they come, the result at `done`, a failure at `error`. */
class EchoEvents {
  text = '';
  result: ChatResult | undefined;
  failure: ToolbridgeError | undefined;
  push(line: string, model: string | undefined): StreamEvent[] {
    const e = parseJsonLine(line);
    if (e?.type === 'step') {
      const command = String(e.command);
      return [
        { type: 'activity', activity: { id: String(e.id), kind: 'command', status: 'completed', title: command, command, exitCode: 0 } },
      ];
    }
    if (e?.type === 'text') {
      this.text += String(e.text);
      return [{ type: 'delta', text: String(e.text) }];
    }
    if (e?.type === 'error') this.failure = classifyFailure({ text: String(e.message), status: Number(e.status) }, failures);
    if (e?.type === 'done') {
      const usage = e.usage as { in: number; out: number };
      const answer = { role: 'assistant' as const, content: this.text };
      this.result = {
        message: answer,
        usage: { input_tokens: usage.in, output_tokens: usage.out },
        ...(model ? { model } : {}),
        metadata: {},
      };
    }
    return [];
  }
}

export function createEchoAgentAdapter(command = 'echo-agent'): ToolAdapter {
  return defineAdapter({
    specificationVersion: 'v1',
    id: 'echo-agent',
    name: 'Echo Agent',
    type: 'agent',
    config,
    features: { activity: true },
    async detect(ctx) {
      const probe = await probeVersion(ctx, { command, toolId: 'echo-agent', timeoutMs: 5000 });
      const { model } = config.read(ctx.config);
      return probe.available
        ? { available: true, version: probe.version, models: [model ?? 'echo-1'], defaultModel: model ?? 'echo-1' }
        : { available: false, models: [], reason: probe.reason };
    },
    stream(request, ctx) {
      const model = request.model ?? config.read(ctx.config).model;
      const events = new EchoEvents();
      return spawnTurn(request, ctx, {
        name: 'Echo Agent',
        toolId: 'echo-agent',
        launch: () => ({ command, args: ['run', ...(model ? ['--model', model] : [])], stdin: renderConversation(request.messages) }),
        line: (line) => events.push(line, model),
        failed: () => events.failure,
        finish(exit) {
          if (events.result) return events.result;
          throw new ProviderExecutionError(`echo-agent exited with code ${exit.exitCode} without an answer`, { toolId: 'echo-agent' });
        },
      });
    },
  });
}

/** The fake `echo-agent` CLI (CommonJS), answering `Echo: <prompt>` after one step. `mode`: ok | unauthenticated | rate-limited | hang | stall. */
export function echoAgentScript(mode: string): string {
  return `
const argv = process.argv.slice(2);
if (argv[0] === '--version') { console.log('echo-agent 1.4.2'); process.exit(0); }
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const out = (e) => process.stdout.write(JSON.stringify(e) + '\\n');
  const mode = ${JSON.stringify(mode)};
  if (mode === 'hang') return setInterval(() => {}, 1000);
  out({ type: 'step', id: 'step-1', command: 'ls' });
  if (mode === 'stall') return setInterval(() => {}, 1000);
  if (mode === 'unauthenticated') return out({ type: 'error', status: 401, message: 'no token' });
  if (mode === 'rate-limited') return out({ type: 'error', status: 429, message: 'slow down' });
  out({ type: 'text', text: 'Echo: ' });
  out({ type: 'text', text: input.trim() });
  out({ type: 'done', usage: { in: input.length, out: 2 } });
});
`;
}
