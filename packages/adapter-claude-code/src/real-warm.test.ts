import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError, ProviderExecutionError, TimeoutError, type ChatRequest } from '@toolbridge/core';
import { type ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, processesWithEnv, waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { agentScript, imageBlocks, startMockAnthropic, structuredScript, userTexts, type MockAnthropicServer } from './testing/index.js';
import { realClaudeRegistry } from './testing/real.js';

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==';

/** The warm transport with the real `claude` 2.1.330 against the mock: long-lived stream-json processes. */
describe('real claude: warm transport', () => {
  let server: MockAnthropicServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  let registry: ToolRegistry;
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // Each answer names what it answers, so the requests show what each chat's context held.
    server = await startMockAnthropic({
      mode: 'script',
      script: (body) => ({ blocks: [{ type: 'text', text: `answer to: ${userTexts(body).at(-1)?.trim()}` }] }),
    });
    tmp = await makeTempDir('tb-claude-warm-');
    ({ registry, home, env } = await realClaudeRegistry(server.url, path.join(tmp.dir, 'home')));
  });
  afterAll(async () => {
    await registry?.close();
    await server?.close();
    await tmp?.cleanup();
  });

  const chat = (request: ChatRequest, timeoutMs = 90_000) => registry.chat('claude-code', request, { timeoutMs });
  const say = (content: string, more: Partial<ChatRequest> = {}) => chat({ messages: [{ role: 'user', content }], ...more });
  /** Claude Code processes of this test's HOME now. */
  const claudes = () => processesWithEnv(`HOME=${home}`);
  const lastRequest = () => server.messageRequests().at(-1)!.body;

  it('stateless chats answer from one warm process, each in a fresh conversation: nothing of one reaches the next', async () => {
    const first = await say('My secret is OWL-42.');
    expect(first.message.content).toBe('answer to: My secret is OWL-42.');
    expect(first.metadata.transport).toBe('warm');
    const pids = claudes();
    expect(pids.length).toBeGreaterThan(0);
    const second = await say('What is my secret?');
    expect(second.metadata.transport).toBe('warm');
    expect(second.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    // The same process answered (no new Claude Code started), and the model saw only the second chat.
    expect(claudes()).toEqual(pids);
    const context = JSON.stringify(lastRequest().messages);
    expect(context).toContain('What is my secret?');
    expect(context).not.toContain('OWL-42');
    expect(registry.load('claude-code')).toMatchObject({ transport: 'warm', warm: { processes: 1, busy: 0 } });
    expect(registry.load('claude-code').warm!.rssBytes).toBeGreaterThan(50 * 1024 * 1024);
  }, 180_000);

  it('a session continues in its live process: only the new message is sent, the first turn is in the context', async () => {
    const first = await say('Remember the colour TEAL.');
    const pids = claudes();
    const second = await say('Which colour?', { sessionId: first.sessionId });
    expect(second.metadata).toMatchObject({ transport: 'warm', nativeSessionId: first.metadata.nativeSessionId });
    expect(claudes()).toEqual(pids);
    const context = JSON.stringify(lastRequest().messages);
    expect(context).toContain('Remember the colour TEAL.');
    expect(context).toContain('Which colour?');
  }, 180_000);

  it('a JSON answer and an image on the warm path: the schema reaches the model, the bytes arrive intact', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    server.behavior = { mode: 'script', script: structuredScript([{ name: 'Ada' }]) };
    const json = await say('Name someone.', { responseFormat: { type: 'json_schema', schema } });
    expect(json).toMatchObject({ object: { name: 'Ada' }, metadata: { transport: 'warm' } });
    expect(lastRequest().tools!.find((t) => t.name === 'StructuredOutput')?.input_schema).toEqual(schema);
    server.behavior = { mode: 'ok', text: 'Four pixels.' };
    const image = await chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
          ],
        },
      ],
    });
    expect(image.metadata.transport).toBe('warm');
    expect(imageBlocks(lastRequest())[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
    // Claude Code's copy of the image (which it names to the model) is gone with the turn, though its process lives on.
    const copy = /\[Image: source: (\S+?)\]/.exec(userTexts(lastRequest()).join('\n'))![1]!;
    expect(copy).toContain(path.join(home, 'state'));
    expect(existsSync(copy)).toBe(false);
  }, 180_000);

  it('an agent task on the warm path works in the chat’s folder', async () => {
    const cwd = path.join(tmp.dir, 'project');
    await mkdir(cwd, { recursive: true });
    server.behavior = {
      mode: 'script',
      script: agentScript([{ name: 'Bash', input: { command: 'echo warm > out.txt', description: 'Write out.txt' } }]),
    };
    const result = await say('Write the file.', { cwd, permissions: 'workspace-write' });
    expect(result.metadata.transport).toBe('warm');
    expect(result.activities).toContainEqual(expect.objectContaining({ kind: 'command', status: 'completed', exitCode: 0 }));
    expect(await readFile(path.join(cwd, 'out.txt'), 'utf8')).toBe('warm\n');
  }, 180_000);

  it("an agent's shell state stays with its conversation: a session keeps its directory, the next stateless chat does not", async () => {
    const cwd = path.join(tmp.dir, 'shell');
    await mkdir(cwd, { recursive: true });
    const bash = (command: string) => ({
      mode: 'script' as const,
      script: agentScript([{ name: 'Bash', input: { command, description: 'Run' } }]),
    });
    // `full`: Claude Code lets `cd` run only with Bash allowed outright.
    const task = { cwd, permissions: 'full' as const };
    server.behavior = bash('mkdir -p sub && cd sub');
    const first = await say('Go to sub.', task);
    const pids = claudes();
    server.behavior = bash('pwd');
    const continued = await say('Where are you?', { ...task, sessionId: first.sessionId });
    expect(continued.message.content).toContain(path.join(cwd, 'sub'));
    const fresh = await say('Where are you?', task);
    expect(fresh.metadata.transport).toBe('warm');
    expect(claudes()).toEqual(pids);
    expect(fresh.message.content).toContain(`OK:"${cwd}`);
    expect(fresh.message.content).not.toContain(path.join(cwd, 'sub'));
  }, 180_000);

  it('a timeout and a caller who goes away interrupt the turn; the process stays and answers the next chat', async () => {
    server.behavior = { mode: 'hang' };
    const pidsBefore = claudes();
    const error = await chat({ messages: [{ role: 'user', content: 'Never answered.' }] }, 3000).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1500);
    const aborted = await registry
      .chat('claude-code', { messages: [{ role: 'user', content: 'Gone.' }] }, { signal: controller.signal })
      .catch((e) => e);
    expect(aborted).toBeInstanceOf(AbortedError);
    server.behavior = { mode: 'ok', text: 'back' };
    const after = await say('Still there?');
    expect(after).toMatchObject({ message: { content: 'back' }, metadata: { transport: 'warm' } });
    expect(claudes().filter((p) => pidsBefore.includes(p)).length).toBeGreaterThan(0);
  }, 240_000);

  it('a process killed mid-turn: retried when nothing was passed on yet; a typed error after, its command ended, the next chat works', async () => {
    /** The warm Claude Code processes (not the commands they run, which share the HOME). */
    const warmClaudes = () => claudes().filter((pid) => cmdline(pid).includes('--input-format'));
    server.behavior = { mode: 'ok', text: 'up' };
    await say('Start one.');
    server.behavior = { mode: 'hang' };
    const before = server.messageRequests().length;
    const pending = say('Crash me.');
    await waitFor(() => server.messageRequests().length > before, 30_000, 'the model request');
    server.behavior = { mode: 'ok', text: 'retried' };
    for (const pid of warmClaudes()) process.kill(pid, 'SIGKILL');
    expect(await pending).toMatchObject({ message: { content: 'retried' }, metadata: { transport: 'warm' } });

    const cwd = path.join(tmp.dir, 'crash');
    await mkdir(cwd, { recursive: true });
    server.behavior = {
      mode: 'script',
      // Claude Code refuses a bare long `sleep`; a node timer is a command that takes long.
      script: agentScript([{ name: 'Bash', input: { command: 'node -e "setTimeout(() => {}, 47001)"', description: 'Wait' } }]),
    };
    const sleepers = () => claudes().filter((pid) => cmdline(pid).includes('47001') && !cmdline(pid).includes('bash'));
    let killed = false;
    const error = await (async () => {
      for await (const e of registry.stream('claude-code', { messages: [{ role: 'user', content: 'Wait.' }], cwd, permissions: 'full' })) {
        if (e.type === 'activity' && e.activity.kind === 'command' && !killed) {
          killed = true;
          await waitFor(() => sleepers().length > 0, 10_000, 'the command to start');
          for (const pid of warmClaudes()) process.kill(pid, 'SIGKILL');
        }
      }
    })().catch((e) => e);
    expect(killed).toBe(true);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    await waitFor(() => sleepers().length === 0, 10_000, 'the killed process’s command to end');
    server.behavior = { mode: 'ok', text: 'fine again' };
    expect((await say('Next.')).message.content).toBe('fine again');
  }, 180_000);

  it('a changed settings file restarts the process; a killed one is replaced; idle shutdown and close leave nothing', async () => {
    server.behavior = { mode: 'ok', text: 'fine' };
    await say('One.');
    const before = claudes();
    await mkdir(env.CLAUDE_CONFIG_DIR!, { recursive: true });
    await writeFile(path.join(env.CLAUDE_CONFIG_DIR!, 'settings.json'), JSON.stringify({ permissions: {} }));
    expect((await say('Two.')).metadata.transport).toBe('warm');
    expect(await waitForPidsGone(before, 10_000)).toEqual([]);
    const restarted = claudes();
    for (const pid of restarted) process.kill(pid, 'SIGKILL');
    await waitForPidsGone(restarted, 10_000);
    expect((await say('Three.')).message.content).toBe('fine');
    registry.config.replace({ warmIdleMs: 500 });
    await say('Four.');
    await waitFor(() => claudes().length === 0, 15_000, 'idle warm processes to shut down');
    expect(registry.load('claude-code').warm).toMatchObject({ processes: 0 });
    registry.config.replace({});
    await say('Five.');
    expect(claudes().length).toBeGreaterThan(0);
    await registry.close();
    await waitFor(() => claudes().length === 0, 15_000, 'close() to end every warm process');
    // Each process's private directory (TMPDIR, neutral cwd) went with it.
    expect(await readdir(path.join(home, 'state', 'toolbridge', 'claude-code-warm')).catch(() => [])).toEqual([]);
  }, 240_000);
});
