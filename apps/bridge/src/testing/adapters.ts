import {
  AGENT_CAPABILITIES,
  ProviderExecutionError,
  RUNTIME_CAPABILITIES,
  sleep,
  ToolAuthError,
  ToolUnavailableError,
  type CallContext,
  type ToolRequest,
  type StreamEvent,
  type ToolAdapter,
  type UsageLimits,
} from '@toolbridge/core';
import { messageText, spawnProcess } from '@toolbridge/adapter-kit';

export interface MemoryAdapterOptions {
  type?: 'agent' | 'runtime';
  /** Answer text, streamed as one delta per word. */
  reply?: string;
  /** Thrown by chat/stream (before any delta unless `failAfterDeltas`). */
  fail?: () => Error;
  failAfterDeltas?: number;
  /** Tools without a login have no checkAuth/startAuth. */
  login?: 'none' | 'logged-in' | 'logged-out';
  available?: boolean;
  /** detect() never settles (a hung tool). */
  hangDetect?: boolean;
  usageLimits?: UsageLimits;
  version?: string;
  delayMs?: number;
}

/** An in-memory tool: no process, fully scripted. */
export function memoryAdapter(id: string, o: MemoryAdapterOptions = {}): ToolAdapter & { calls: ToolRequest[] } {
  const calls: ToolRequest[] = [];
  const reply = o.reply ?? `hello from ${id}`;
  const modelKey = `${id.replace(/-./g, (m) => m[1]!.toUpperCase())}Model`;
  const login = o.login ?? 'logged-in';
  async function* stream(request: ToolRequest, ctx: CallContext): AsyncIterable<StreamEvent> {
    calls.push(request);
    if (o.fail && !o.failAfterDeltas) throw o.fail();
    const words = reply.split(/(?<= )/);
    let sent = 0;
    for (const w of words) {
      if (o.delayMs) await sleep(o.delayMs, ctx.signal);
      if (o.fail && sent === o.failAfterDeltas) throw o.fail();
      yield { type: 'delta', text: w };
      sent++;
    }
    const model = request.model ?? (ctx.config[modelKey] as string | undefined) ?? `${id}-default`;
    yield {
      type: 'result',
      result: {
        message: { role: 'assistant', content: reply },
        usage: { input_tokens: 3, output_tokens: words.length },
        model,
        metadata: {},
      },
    };
  }
  const adapter: ToolAdapter & { calls: ToolRequest[] } = {
    id,
    name: `Memory ${id}`,
    type: o.type ?? 'agent',
    capabilities: (o.type ?? 'agent') === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES,
    features: {},
    configSchema: { [modelKey]: { type: 'string', minLength: 1 } },
    calls,
    async detect(ctx) {
      if (o.hangDetect) await sleep(3_600_000, ctx.signal);
      if (o.available === false) return { available: false, models: [], reason: `${id} is not installed` };
      const model = (ctx.config[modelKey] as string | undefined) ?? `${id}-default`;
      return { available: true, version: o.version ?? '1.2.3', models: [model], defaultModel: model };
    },
    stream,
  };
  if (login !== 'none') {
    adapter.checkAuth = async () =>
      login === 'logged-in' ? { authenticated: true, method: 'api_key' } : { authenticated: false, detail: `${id} is not logged in` };
    adapter.startAuth = async () => ({
      toolId: id,
      status: 'started',
      authenticated: login === 'logged-in',
      command: `${id} login`,
      instructions: `Run "${id} login" and follow the browser prompt`,
      output: 'Opening browser to sign in…',
      checkedAt: new Date().toISOString(),
    });
  }
  if (o.usageLimits) {
    const limits = o.usageLimits;
    adapter.usageLimits = async () => limits;
  }
  return adapter;
}

/**
 * A tool backed by a real child process: runs `command` from the call's PATH,
 * passes `--model <m>` when `<id>Model` is configured, writes the prompt to
 * stdin and reads JSONL: `{"delta":"..."}`, `{"done":{usage}}`,
 * `{"error":"auth"|"crash"}`. Lets tests prove that processes are killed.
 */
export function processAdapter(id: string, command: string): ToolAdapter {
  const modelKey = `${id}Model`;
  async function* stream(request: ToolRequest, ctx: CallContext): AsyncIterable<StreamEvent> {
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
        return { available: true, version: lines.join('').trim(), models: [], defaultModel: undefined };
      } catch (e) {
        if (ToolUnavailableError.isInstance(e)) return { available: false, models: [], reason: (e as Error).message };
        throw e;
      }
    },
    stream,
  };
}

/**
 * Body of a fake executable for `processAdapter`: records its pid and argv,
 * prints `deltas` with `delayMs` between them, then either finishes, hangs,
 * or fails with `error`.
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
