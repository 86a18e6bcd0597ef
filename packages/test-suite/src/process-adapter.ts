import { messageText, spawnProcess } from '@toolbridge/adapter-kit';
import {
  AGENT_CAPABILITIES,
  ProviderExecutionError,
  ToolAuthError,
  ToolUnavailableError,
  type ChatContext,
  type StreamEvent,
  type ToolAdapter,
  type ToolRequest,
} from '@toolbridge/core';

/**
 * A tool backed by a real child process, run the way the CLI adapters run theirs (the kit's
 * runner: no shell, process group, prompt on stdin): `command` from the call's PATH, `--model <m>`
 * when `<id>Model` is configured; it reads JSONL `{"delta":"..."}`, `{"done":{usage}}`,
 * `{"error":"auth"|"crash"}`. Lets tests prove that processes are killed.
 */
export function processAdapter(id: string, command: string): ToolAdapter {
  const modelKey = `${id}Model`;
  async function* stream(request: ToolRequest, ctx: ChatContext): AsyncIterable<StreamEvent> {
    const model = request.model ?? (ctx.config[modelKey] as string | undefined);
    const proc = spawnProcess({
      command,
      args: ['chat', ...(model ? ['--model', model] : [])],
      stdin: request.messages.map((m) => messageText(m)).join('\n'),
      env: ctx.env,
      signal: ctx.signal,
      toolId: id,
    });
    let text = '';
    for await (const line of proc) {
      const event = JSON.parse(line) as { delta?: string; done?: { usage: Record<string, number> }; error?: string };
      if (event.delta !== undefined) {
        text += event.delta;
        yield { type: 'delta', text: event.delta };
      } else if (event.error === 'auth') {
        throw new ToolAuthError(`${id} is not logged in; run "${id} login"`, { toolId: id });
      } else if (event.error) {
        throw new ProviderExecutionError(`${id} failed: ${event.error}`, { toolId: id });
      } else if (event.done) {
        yield {
          type: 'result',
          result: { message: { role: 'assistant', content: text }, usage: event.done.usage, model: model ?? `${id}-default`, metadata: {} },
        };
      }
    }
    const r = await proc.result;
    if (r.exitCode !== 0) throw new ProviderExecutionError(`${id} exited with code ${r.exitCode}`, { toolId: id });
  }
  return {
    specificationVersion: 'v1',
    id,
    name: `Process ${id}`,
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    features: {},
    configSchema: { [modelKey]: { type: 'string', minLength: 1 } },
    async detect(ctx) {
      const proc = spawnProcess({ command, args: ['--version'], env: ctx.env, signal: ctx.signal, toolId: id });
      try {
        const lines: string[] = [];
        for await (const l of proc) lines.push(l);
        return { available: true, version: lines.join('').trim(), models: [] };
      } catch (e) {
        if (ToolUnavailableError.isInstance(e)) return { available: false, models: [], reason: (e as Error).message };
        throw e;
      }
    },
    stream,
  };
}

/**
 * Body of a fake executable for `processAdapter`: records its pid and argv, prints `deltas` with
 * `delayMs` between them, then either finishes, hangs, or fails with `error`.
 */
export function fakeToolScript(o: {
  deltas: string[];
  delayMs?: number;
  hangAfter?: boolean;
  error?: string;
  pidFile: string;
  argvFile?: string;
}): string {
  return `
const fs = require('fs');
const o = ${JSON.stringify(o)};
if (process.argv[2] === '--version') { console.log('fake 9.9.9'); process.exit(0); }
fs.appendFileSync(o.pidFile, process.pid + '\\n');
if (o.argvFile) fs.writeFileSync(o.argvFile, JSON.stringify(process.argv.slice(2)));
process.stdin.resume();
process.stdin.on('end', async () => {
  for (const d of o.deltas) {
    process.stdout.write(JSON.stringify({ delta: d }) + '\\n');
    if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
  }
  if (o.hangAfter) { setInterval(() => {}, 1000); return; }
  if (o.error) { process.stdout.write(JSON.stringify({ error: o.error }) + '\\n'); process.exit(1); }
  process.stdout.write(JSON.stringify({ done: { usage: { input_tokens: 2, output_tokens: o.deltas.length } } }) + '\\n');
});
`;
}
