/**
 * A whole adapter for a fifth tool, `echo-agent`, a fake CLI: what someone adding a real tool
 * writes, and nothing more. Core, the test kit and the dashboard are not touched to add it.
 * `echo-agent --version` prints `echo-agent 1.4.2`; `echo-agent run [--model m]` reads the prompt
 * on stdin and prints JSONL: `{"type":"step","id","command"}`, `{"type":"text","text"}`,
 * `{"type":"done","usage":{"in","out"}}` or `{"type":"error","status","message"}`.
 */
import { ProviderExecutionError, RateLimitError, ToolAuthError, type ToolAdapter } from '@toolbridge/core';
import { adapterConfig } from '../config.js';
import { defineAdapter } from '../define.js';
import { toolFailure } from '../failures.js';
import { probeVersion } from '../probe.js';
import { spawnProcess } from '../runner.js';
import { parseJsonLine, renderConversation } from '../text.js';

const config = adapterConfig('echo-agent', { model: { type: 'string', minLength: 1, description: 'Model for echo-agent (`--model`)' } });

/** Failures from the tool's own error event: structured status first. */
function failure(status: number, message: string) {
  if (status === 401) return new ToolAuthError(`echo-agent is not logged in: ${message}`, { toolId: 'echo-agent' });
  if (status === 429) return new RateLimitError(`echo-agent is rate limited: ${message}`, { toolId: 'echo-agent' });
  return new ProviderExecutionError(`echo-agent failed: ${message}`, { toolId: 'echo-agent', retryable: status >= 500 });
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
    async *stream(request, ctx) {
      const model = request.model ?? config.read(ctx.config).model;
      try {
        const proc = spawnProcess({
          command,
          args: ['run', ...(model ? ['--model', model] : [])],
          stdin: renderConversation(request.messages),
          env: ctx.env,
          cwd: ctx.cwd,
          signal: ctx.signal,
          toolId: 'echo-agent',
        });
        let text = '';
        for await (const line of proc) {
          const e = parseJsonLine(line);
          if (e?.type === 'step')
            yield {
              type: 'activity',
              activity: {
                id: String(e.id),
                kind: 'command',
                status: 'completed',
                title: String(e.command),
                command: String(e.command),
                exitCode: 0,
              },
            };
          else if (e?.type === 'text') {
            text += String(e.text);
            yield { type: 'delta', text: String(e.text) };
          } else if (e?.type === 'error') throw failure(Number(e.status), String(e.message));
          else if (e?.type === 'done') {
            const usage = e.usage as { in: number; out: number };
            yield {
              type: 'result',
              result: {
                message: { role: 'assistant', content: text },
                usage: { input_tokens: usage.in, output_tokens: usage.out },
                ...(model ? { model } : {}),
                metadata: {},
              },
            };
          }
        }
        const exit = await proc.result;
        if (exit.exitCode !== 0) throw new ProviderExecutionError(`echo-agent exited with code ${exit.exitCode}`, { toolId: 'echo-agent' });
      } catch (e) {
        throw toolFailure(e, 'Echo Agent', 'echo-agent');
      }
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
