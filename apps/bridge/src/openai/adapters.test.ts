import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { makeTempDir, pathWith, replayScript, waitFor, waitForPidsGone, writeFakeBin } from '@toolbridge/test-suite/kit';
import { capture as codexCapture } from '@toolbridge/adapter-codex/testing';
import { startFakeOllama, type FakeOllama } from '@toolbridge/adapter-ollama/testing';
import { createCodexAdapter, createOllamaAdapter, createToolbridge, type Toolbridge } from 'toolbridge';
import { fakeToolScript, processAdapter } from '@toolbridge/test-suite/kit';
import { serveOpenAI, type OpenAIServer } from './testing/serve.js';

type APIError = InstanceType<typeof OpenAI.APIError>;

const hello = [{ role: 'user' as const, content: 'Say hello' }];

async function failureOf(p: Promise<unknown>): Promise<APIError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(OpenAI.APIError);
    return e as APIError;
  }
  throw new Error('expected the call to fail');
}

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<OpenAI.ChatCompletionChunk[]> {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  return chunks;
}

const textOf = (chunks: OpenAI.ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

describe('Ollama through the OpenAI API', () => {
  let ollama: FakeOllama;
  let toolbridge: Toolbridge;
  let server: OpenAIServer;

  beforeAll(async () => {
    ollama = await startFakeOllama({ models: ['qwen3:14b', 'llama3.2:latest'], reply: (m) => `Hi from ${m} on Ollama`, promptTokens: 21 });
    toolbridge = createToolbridge({ adapters: [createOllamaAdapter()], env: { OLLAMA_HOST: ollama.url } });
    server = await serveOpenAI(toolbridge);
  });
  afterAll(async () => {
    await server.close();
    await toolbridge.close();
    await ollama.close();
  });

  it('lists the runtime and each installed model', async () => {
    const ids: string[] = [];
    for await (const m of server.client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['ollama', 'ollama/qwen3:14b', 'ollama/llama3.2:latest']);
  });

  it('answers a non-streamed completion with Ollama token counts as usage', async () => {
    const c = await server.client.chat.completions.create({ model: 'ollama/qwen3:14b', messages: hello, max_tokens: 50, temperature: 0 });
    expect(c.choices[0]!.message.content).toBe('Hi from qwen3:14b on Ollama');
    expect(c.model).toBe('ollama/qwen3:14b');
    expect(c.usage).toEqual({ prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 });
    const sent = ollama.chats.at(-1)!;
    expect(sent.model).toBe('qwen3:14b');
    expect(sent.options).toEqual({ num_predict: 50, temperature: 0 });
  });

  it('streams Ollama NDJSON deltas as chunks ending in stop and usage', async () => {
    const chunks = await collect(
      await server.client.chat.completions.create({
        model: 'ollama/llama3.2',
        messages: hello,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(textOf(chunks)).toBe('Hi from llama3.2:latest on Ollama');
    // One chunk per NDJSON delta: the text arrives in pieces, not at the end.
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(5);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 });
  });

  it('404s a model Ollama does not have, for plain and streamed calls', async () => {
    for (const stream of [false, true]) {
      const err = await failureOf(server.client.chat.completions.create({ model: 'ollama/mistral:7b', messages: hello, stream }));
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err.code).toBe('model_not_found');
    }
  });

  it('503s when no Ollama server answers, and lists no Ollama model', async () => {
    const down = createToolbridge({ adapters: [createOllamaAdapter()], env: { OLLAMA_HOST: 'http://127.0.0.1:9' } });
    const s = await serveOpenAI(down);
    try {
      const ids: string[] = [];
      for await (const m of s.client.models.list()) ids.push(m.id);
      expect(ids).toEqual([]);
      const err = await failureOf(s.client.chat.completions.create({ model: 'ollama', messages: hello }));
      expect(err.status).toBe(503);
      expect(err.code).toBe('tool_unavailable');
    } finally {
      await s.close();
      await down.close();
    }
  });
});

describe('Codex CLI (fake on PATH) through the OpenAI API', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let toolbridge: Toolbridge;
  let server: OpenAIServer;
  let modeFile: string;
  let pidFile: string;
  const mode = (m: string) => writeFile(modeFile, m);
  const pids = async () => (await readFile(pidFile, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);

  beforeAll(async () => {
    tmp = await makeTempDir('toolbridge-openai-codex-');
    const bin = path.join(tmp.dir, 'bin');
    const modes = path.join(tmp.dir, 'modes');
    await mkdir(modes, { recursive: true });
    modeFile = path.join(tmp.dir, 'mode');
    pidFile = path.join(tmp.dir, 'pids');
    const stderr = codexCapture('codex-mock.err');
    const ok = codexCapture('codex-mock.out');
    const scripts: Record<string, string> = {
      ok: replayScript({ stdout: ok, stderr, pidFile }),
      'logged-out': replayScript({ stdout: codexCapture('codex-noenv.out'), stderr, exitCode: 1, pidFile }),
      failing: replayScript({ stdout: codexCapture('codex-err.out'), stderr, exitCode: 1, pidFile }),
      // Starts a thread, then never answers (as Codex does when it cannot reach its server).
      hang: replayScript({ stdout: ok.split('\n')[0] + '\n', stderr, hang: true, pidFile }),
    };
    for (const [name, body] of Object.entries(scripts)) await writeFile(path.join(modes, `${name}.js`), body);
    await writeFakeBin(
      bin,
      'codex',
      `const fs = require('fs'), path = require('path');
if (process.argv.includes('--version')) { process.stdout.write('codex-cli 0.169.0\\n'); process.exit(0); }
// No warm server here (as a Codex without app-server): chats take the spawn path these modes replay.
if (process.argv[2] === 'app-server') { process.stderr.write("error: unrecognized subcommand 'app-server'\\n"); process.exit(2); }
require(path.join(${JSON.stringify(modes)}, fs.readFileSync(${JSON.stringify(modeFile)}, 'utf8').trim() + '.js'));`,
    );
    const home = path.join(tmp.dir, 'home');
    await mkdir(home);
    toolbridge = createToolbridge({
      adapters: [createCodexAdapter()],
      env: { PATH: pathWith(bin), HOME: home, CODEX_HOME: path.join(home, '.codex'), XDG_CONFIG_HOME: home, XDG_DATA_HOME: home },
    });
    server = await serveOpenAI(toolbridge, { chatTimeoutMs: 20_000 });
  });
  afterAll(async () => {
    await server.close();
    await toolbridge.close();
    await tmp.cleanup();
  });

  it('lists codex, and codex/<model> once a model is configured', async () => {
    const list = async () => {
      const ids: string[] = [];
      for await (const m of server.client.models.list()) ids.push(m.id);
      return ids;
    };
    expect(await list()).toEqual(['codex']);
    toolbridge.configure({ codexModel: 'gpt-5-codex' });
    try {
      expect(await list()).toEqual(['codex', 'codex/gpt-5-codex']);
    } finally {
      toolbridge.configure({});
    }
  });

  it('answers a non-streamed completion from the replayed Codex run', async () => {
    await mode('ok');
    const c = await server.client.chat.completions.create({ model: 'codex', messages: hello });
    expect(c.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello from mock' });
    expect(c.usage).toEqual({
      prompt_tokens: 1234,
      completion_tokens: 56,
      total_tokens: 1290,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
  });

  it('streams the Codex answer', async () => {
    await mode('ok');
    const chunks = await collect(await server.client.chat.completions.create({ model: 'codex/mock-model', messages: hello, stream: true }));
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(textOf(chunks)).toBe('Hello from mock');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.every((c) => c.model === 'codex/mock-model')).toBe(true);
  });

  it('401s when Codex is not authenticated', async () => {
    await mode('logged-out');
    for (const stream of [false, true]) {
      const err = await failureOf(server.client.chat.completions.create({ model: 'codex', messages: hello, stream }));
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(err.code).toBe('tool_auth_required');
    }
  });

  it('502s when Codex reports a failed turn', async () => {
    await mode('failing');
    const err = await failureOf(server.client.chat.completions.create({ model: 'codex', messages: hello }));
    expect(err.status).toBe(502);
    expect(err.code).toBe('provider_execution_failed');
    expect(err.message).toContain('high demand');
  });

  it('kills the Codex process when the client disconnects from a stream', async () => {
    await mode('hang');
    await writeFile(pidFile, '');
    const controller = new AbortController();
    const call = server.client.chat.completions.create({ model: 'codex', messages: hello, stream: true }, { signal: controller.signal });
    call.catch(() => {});
    await waitFor(async () => (await pids()).length > 0, 10_000, 'the fake codex to start');
    const [pid] = await pids();
    controller.abort();
    expect(await waitForPidsGone([pid!], 5000)).toEqual([]);
  });
});

describe('a tool process that is streaming text when the client disconnects', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let toolbridge: Toolbridge;
  let server: OpenAIServer;
  let pidFile: string;

  beforeAll(async () => {
    tmp = await makeTempDir('toolbridge-openai-proc-');
    pidFile = path.join(tmp.dir, 'pids');
    const bin = path.join(tmp.dir, 'bin');
    // One line of text, then silence: the client has seen content when it goes away.
    const command = await writeFakeBin(bin, 'talker', fakeToolScript({ deltas: ['first words'], hangAfter: true, pidFile }));
    toolbridge = createToolbridge({ adapters: [processAdapter('talker', command)] });
    server = await serveOpenAI(toolbridge);
  });
  afterAll(async () => {
    await server.close();
    await toolbridge.close();
    await tmp.cleanup();
  });

  it('kills the process group after content chunks were sent', async () => {
    const controller = new AbortController();
    const stream = await server.client.chat.completions.create(
      { model: 'talker', messages: hello, stream: true },
      { signal: controller.signal },
    );
    const it = stream[Symbol.asyncIterator]();
    const role = await it.next();
    const content = await it.next();
    expect(role.value!.choices[0]!.delta.role).toBe('assistant');
    expect(content.value!.choices[0]!.delta.content).toBe('first words');
    const pids = (await readFile(pidFile, 'utf8')).split('\n').filter(Boolean).map(Number);
    expect(pids).toHaveLength(1);
    controller.abort();
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });
});
