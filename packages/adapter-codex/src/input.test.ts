import { afterEach, describe, expect, it } from '@jest/globals';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ProviderExecutionError, type ChatRequest, type ToolbridgeConfig } from '@toolbridge/core';
import { createCallContext } from '@toolbridge/core/runtime';
import { adapterChat, makeTempDir } from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from './adapter.js';
import { strictCompatible, takesFormat } from './input.js';
import { capture, CAPTURES_DIR, fakeCodexEnv, REPLAYS, type Step } from './testing/fake-codex.js';

/** What a `codex exec` run is handed: schema and image files, `resume`/`fork`, and the turn's own usage. */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const STRICT = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };

/**
 * A fake `codex exec` that writes down its argv, stdin and the files named by `--output-schema`
 * and `--image=` (content and mode, read while it runs), then replays `stdout`.
 */
function recordingExec(record: string, stdout: string): Step {
  return {
    js: `
const fs = require('fs');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const files = {};
  argv.forEach((a, i) => {
    const f = a === '--output-schema' ? argv[i + 1] : a.startsWith('--image=') ? a.slice(8) : undefined;
    if (f) files[f] = { base64: fs.readFileSync(f).toString('base64'), mode: (fs.statSync(f).mode & 0o777).toString(8) };
  });
  fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv, stdin: input, files }));
  process.stdout.write(${JSON.stringify(stdout)});
});`,
  };
}

async function setup(stdout = capture('codex-mock.out'), config: ToolbridgeConfig = {}) {
  const rec = await makeTempDir('toolbridge-codex-rec-');
  cleanups.push(rec.cleanup);
  const record = path.join(rec.dir, 'exec.json');
  const fake = await fakeCodexEnv({ version: REPLAYS.version, exec: recordingExec(record, stdout) });
  cleanups.push(fake.cleanup);
  const adapter = createCodexAdapter();
  const chat = (request: ChatRequest, options: Parameters<typeof adapterChat>[3] = {}) => {
    const { ctx, done } = createCallContext({ config, env: fake.env, toolId: 'codex' }, { timeoutMs: 30_000 });
    cleanups.push(async () => done());
    return adapterChat(adapter, request, ctx, options);
  };
  const seen = async () =>
    JSON.parse(await readFile(record, 'utf8')) as {
      argv: string[];
      stdin: string;
      files: Record<string, { base64: string; mode: string }>;
    };
  return { chat, seen, fake };
}

describe('structured output and images', () => {
  it('a strict-compatible schema goes to Codex as a 0600 --output-schema file in the scratch directory', async () => {
    const { chat, seen } = await setup();
    let scratch = '';
    await chat(
      { messages: [{ role: 'user', content: 'JSON please' }], responseFormat: { type: 'json_schema', schema: STRICT } },
      { onScratch: (d) => (scratch = d) },
    );
    const { argv, stdin, files } = await seen();
    const file = argv[argv.indexOf('--output-schema') + 1]!;
    expect(file.startsWith(scratch + path.sep)).toBe(true);
    expect(files[file]).toEqual({ base64: Buffer.from(JSON.stringify(STRICT)).toString('base64'), mode: '600' });
    expect(stdin).toBe('JSON please');
  });

  it('declines plain JSON and a schema strict mode would refuse (core asks for those in words)', () => {
    const loose = { type: 'object', properties: { a: { type: 'string' } } };
    expect(createCodexAdapter().takesFormat).toBe(takesFormat);
    expect(takesFormat({ type: 'json_schema', schema: STRICT })).toBe(true);
    expect(takesFormat({ type: 'json_schema', schema: loose })).toBe(false);
    expect(takesFormat({ type: 'json' })).toBe(false);
  });

  it('images go as 0600 `--image=<file>` files, the bytes unchanged, in the order of the prompt’s placeholders', async () => {
    const { chat, seen } = await setup();
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).toString('base64');
    await chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare ' },
            { type: 'image', mediaType: 'image/png', data: PNG },
            { type: 'text', text: ' and ' },
            { type: 'image', mediaType: 'image/jpeg', data: jpeg },
          ],
        },
      ],
    });
    const { argv, stdin, files } = await seen();
    const images = argv.filter((a) => a.startsWith('--image=')).map((a) => a.slice(8));
    expect(images.map((f) => path.basename(f))).toEqual(['image-1.png', 'image-2.jpg']);
    expect(images.map((f) => files[f])).toEqual([
      { base64: PNG, mode: '600' },
      { base64: jpeg, mode: '600' },
    ]);
    expect(stdin).toBe('Compare [image 1: image/png] and [image 2: image/jpeg]');
  });

  it('knows which schemas OpenAI’s strict mode takes', () => {
    expect(strictCompatible(STRICT)).toBe(true);
    const nested = { ...STRICT, properties: { a: { type: 'array', items: { ...STRICT } } } };
    expect(strictCompatible(nested)).toBe(true);
    expect(strictCompatible({ type: 'array', items: { type: 'string' } })).toBe(false);
    expect(strictCompatible({ ...STRICT, additionalProperties: true })).toBe(false);
    expect(strictCompatible({ ...STRICT, required: [] })).toBe(false);
    expect(strictCompatible({ ...STRICT, properties: { a: { type: 'object', properties: {} } } })).toBe(false);
  });
});

describe('sessions', () => {
  /** The real run's output, its usage the thread's running total after a second turn. */
  const resumed = capture('codex-mock.out').replace(
    /"input_tokens":1234,"cached_input_tokens":1000/,
    '"input_tokens":2468,"cached_input_tokens":2000',
  );
  const THREAD = '01a20148-b4b2-79a1-8a35-96c1c4f476c8';

  it('resumes (or forks) the thread with every option before the subcommand; usage is the turn’s share of the thread total', async () => {
    const { chat, seen, fake } = await setup(resumed, { codexModel: 'mock-model', codexSandbox: 'workspace-write' });
    // The thread's log so far: its last token_count holds the running total (1234 input tokens).
    const day = path.join(fake.codexHome, 'sessions', '2026', '11', '22');
    await mkdir(day, { recursive: true });
    const log = 'codex-home-sessions/rollout-2026-11-22T03-24-31-01a20148-b4b2-79a1-8a35-96c1c4f476c8.jsonl';
    await copyFile(path.join(CAPTURES_DIR, log), path.join(day, path.basename(log)));
    const result = await chat({ messages: [{ role: 'user', content: 'and then?' }] }, { resume: { nativeSessionId: THREAD, fork: false } });
    const { argv, stdin } = await seen();
    expect(argv.slice(-3)).toEqual(['resume', THREAD, '-']);
    expect(argv.slice(0, argv.indexOf('resume'))).toEqual(expect.arrayContaining(['--sandbox', 'workspace-write', '-m', 'mock-model']));
    expect(stdin).toBe('and then?');
    expect(result.usage).toMatchObject({ input_tokens: 1234, cached_input_tokens: 1000 });
    expect(result.metadata.nativeSessionId).toBe(THREAD);
    await chat({ messages: [{ role: 'user', content: 'branch' }] }, { resume: { nativeSessionId: THREAD, fork: true } });
    expect((await seen()).argv.slice(-3)).toEqual(['fork', THREAD, '-']);
  });

  it('a thread Codex no longer has is a typed error naming the reason, not the id', async () => {
    const fake = await fakeCodexEnv({ version: REPLAYS.version, exec: { stderr: capture('codex-resume-unknown.err'), exitCode: 1 } });
    cleanups.push(fake.cleanup);
    const { ctx, done } = createCallContext({ config: {}, env: fake.env, toolId: 'codex' }, { timeoutMs: 30_000 });
    cleanups.push(async () => done());
    const error = await adapterChat(createCodexAdapter(), { messages: [{ role: 'user', content: 'x' }] }, ctx, {
      resume: { nativeSessionId: '01a20000-0000-7000-8000-000000000000', fork: false },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ publicDetails: { reason: 'native_session_missing' }, retryable: false });
    expect(error.message).not.toContain('01a20000');
  });

  it('refuses a session id Codex would read as an option', async () => {
    const { chat } = await setup();
    await expect(
      chat({ messages: [{ role: 'user', content: 'x' }] }, { resume: { nativeSessionId: '--last', fork: false } }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});
