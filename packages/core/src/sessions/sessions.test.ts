import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, scriptedAdapter, waitFor, type ScriptedAdapter } from '@toolbridge/test-suite/kit';
import { InvalidRequestError, SessionBusyError, SessionNotFoundError } from '../errors.js';
import { createRegistry, type ToolRegistry } from '../registry.js';
import { textOf } from '../request.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(adapters: ScriptedAdapter[], sessions: { maxSessions?: number; maxAgeMs?: number } = {}, dir?: string) {
  const home = dir ?? (await makeTempDir('toolbridge-sessions-')).dir;
  const registry = createRegistry({ adapters, env: { HOME: home }, sessions });
  cleanups.push(() => registry.close());
  return { registry, home, dir: registry.sessions.dir };
}

const ask = (content: string, more: object = {}) => ({ messages: [{ role: 'user' as const, content }], ...more });
const echo = (id: string) =>
  scriptedAdapter(id, { script: (request) => ({ deltas: [`${id} heard: ${request.messages.map((m) => textOf(m)).join(' | ')}`] }) });
const native = (id: string) =>
  scriptedAdapter(id, {
    features: { sessions: { resume: true, fork: true } },
    script: (request, n) => ({
      deltas: [`turn ${n}`],
      metadata: {
        nativeSessionId: request.resume
          ? request.resume.fork
            ? `${request.resume.nativeSessionId}-fork${n}`
            : request.resume.nativeSessionId
          : `native-${n}`,
      },
    }),
  });

describe('sessions', () => {
  it('every answer carries a session; continuing one sends a transcript tool the whole conversation', async () => {
    const tool = echo('echo');
    const { registry } = await setup([tool]);
    const first = await registry.chat('echo', ask('SECRET-1 hello'));
    expect(first.sessionId).toMatch(/^tbs_/);
    const second = await registry.chat('echo', ask('and then?', { sessionId: first.sessionId }));
    expect(second.sessionId).toBe(first.sessionId);
    expect(tool.requests[1]!.messages.map((m) => [m.role, textOf(m)])).toEqual([
      ['user', 'SECRET-1 hello'],
      ['assistant', 'echo heard: SECRET-1 hello'],
      ['user', 'and then?'],
    ]);
    const detail = await registry.sessions.get(first.sessionId!);
    expect(detail).toMatchObject({ id: first.sessionId, toolId: 'echo', turns: 2, title: 'SECRET-1 hello', toolChanges: [] });
    expect(detail.messages.map((m) => [m.role, m.toolId])).toEqual([
      ['user', undefined],
      ['assistant', 'echo'],
      ['user', undefined],
      ['assistant', 'echo'],
    ]);
    const [summary] = await registry.sessions.list();
    expect(summary).toMatchObject({ id: first.sessionId, turns: 2, toolId: 'echo' });
    expect(summary).not.toHaveProperty('messages');
  });

  it('a tool with native sessions gets only the new message and its own session id; a fork leaves the original untouched', async () => {
    const tool = native('nat');
    const { registry } = await setup([tool]);
    const first = await registry.chat('nat', ask('one'));
    await registry.chat('nat', ask('two', { sessionId: first.sessionId }));
    expect(tool.requests[1]).toMatchObject({
      resume: { nativeSessionId: 'native-0', fork: false },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'two' }] }],
    });
    const forked = await registry.chat('nat', ask('three (fork)', { sessionId: first.sessionId, fork: true }));
    expect(forked.sessionId).not.toBe(first.sessionId);
    expect(tool.requests[2]!.resume).toEqual({ nativeSessionId: 'native-0', fork: true });
    const original = await registry.sessions.get(first.sessionId!);
    const fork = await registry.sessions.get(forked.sessionId!);
    expect(original.turns).toBe(2);
    expect(fork).toMatchObject({ turns: 3, forkedFrom: first.sessionId });
    expect(fork.messages.map((m) => textOf(m as never))).toEqual(['one', 'turn 0', 'two', 'turn 1', 'three (fork)', 'turn 2']);
    // The fork continues its own native session.
    await registry.chat('nat', ask('four', { sessionId: forked.sessionId }));
    expect(tool.requests[3]!.resume).toEqual({ nativeSessionId: 'native-0-fork2', fork: false });
  });

  it("a native fork works in its original's private directory, which outlives the original's deletion and goes with the last fork", async () => {
    const tool = native('nat');
    const { registry, dir } = await setup([tool]);
    const first = await registry.chat('nat', ask('one'));
    const forked = await registry.chat('nat', ask('two (fork)', { sessionId: first.sessionId, fork: true }));
    const work = tool.calls[0]!.ctx.cwd;
    expect(tool.calls[1]!.ctx.cwd).toBe(work);
    await registry.sessions.delete(first.sessionId!);
    await expect(registry.sessions.get(first.sessionId!)).rejects.toBeInstanceOf(SessionNotFoundError);
    expect((await stat(work)).isDirectory()).toBe(true);
    // The fork goes on where it was, its files intact.
    await registry.chat('nat', ask('three', { sessionId: forked.sessionId }));
    expect(tool.calls[2]!.ctx.cwd).toBe(work);
    await registry.sessions.delete(forked.sessionId!);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a session whose own directory was removed says so (400 naming it), not that the tool is missing', async () => {
    const tool = echo('echo');
    const { registry, home } = await setup([tool]);
    const mine = path.join(home, 'project');
    await mkdir(mine);
    const first = await registry.chat('echo', ask('one', { cwd: mine }));
    await rm(mine, { recursive: true });
    const error = await registry.chat('echo', ask('two', { sessionId: first.sessionId })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe(`the working directory of session ${first.sessionId} "${mine}" does not exist`);
  });

  it('a turn that names no model follows the tool’s default, not the model that answered before', async () => {
    const tool = scriptedAdapter('router', { script: () => ({ deltas: ['ok'], model: 'routed-model-7' }) });
    const { registry } = await setup([tool]);
    const first = await registry.chat('router', ask('one'));
    expect(first.model).toBe('routed-model-7');
    await registry.chat('router', ask('two', { sessionId: first.sessionId }));
    expect(tool.calls.at(-1)!.request.model).toBeUndefined();
    await registry.chat('router', ask('three', { sessionId: first.sessionId, model: 'chosen-1' }));
    expect(tool.calls.at(-1)!.request.model).toBe('chosen-1');
  });

  it('hands a session over to another tool with the transcript; the session then belongs to it and records the change', async () => {
    const a = native('first-tool');
    const b = echo('second-tool');
    const { registry } = await setup([a, b]);
    const s = await registry.chat('first-tool', ask('remember 7'));
    const answer = await registry.chat('second-tool', ask('what number?', { sessionId: s.sessionId }));
    expect(answer.message.content).toBe('second-tool heard: remember 7 | turn 0 | what number?');
    const detail = await registry.sessions.get(s.sessionId!);
    expect(detail.toolId).toBe('second-tool');
    expect(detail.toolChanges).toEqual([{ from: 'first-tool', to: 'second-tool', at: expect.any(String) }]);
    // Back to the first tool: it no longer owns a native session for this conversation, so it gets the transcript too.
    await registry.chat('first-tool', ask('again', { sessionId: s.sessionId }));
    expect(a.requests.at(-1)!.resume).toBeUndefined();
    expect(a.requests.at(-1)!.messages).toHaveLength(5);
  });

  it('unknown ids are session_not_found (404); a turn of a busy session is session_busy (409), never interleaved', async () => {
    const tool = scriptedAdapter('slow', { script: [{ deltas: ['a'] }, { deltas: ['b'], hold: true }] });
    const { registry } = await setup([tool]);
    await expect(registry.chat('slow', ask('x', { sessionId: 'tbs_doesnotexist' }))).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(registry.sessions.get('tbs_doesnotexist')).rejects.toMatchObject({ code: 'session_not_found', httpStatus: 404 });
    const s = await registry.chat('slow', ask('first'));
    const running = registry.chat('slow', ask('second', { sessionId: s.sessionId }));
    await waitFor(() => tool.calls.length === 2, 2000, 'the second turn to start');
    const clash = await registry.chat('slow', ask('third', { sessionId: s.sessionId })).catch((e) => e);
    expect(clash).toBeInstanceOf(SessionBusyError);
    expect(clash).toMatchObject({ code: 'session_busy', httpStatus: 409 });
    await expect(registry.sessions.delete(s.sessionId!)).rejects.toBeInstanceOf(SessionBusyError);
    tool.finishOne();
    await running;
    expect(tool.calls).toHaveLength(2);
    await registry.sessions.delete(s.sessionId!);
    await expect(registry.sessions.get(s.sessionId!)).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('keeps files 0600 in folders 0700, a private working directory per session, and survives a restart', async () => {
    const { registry, home, dir } = await setup([echo('echo')]);
    const s = await registry.chat('echo', ask('persist me'));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const folder = path.join(dir, s.sessionId!);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    for (const f of await readdir(folder)) {
      const st = await stat(path.join(folder, f));
      expect(st.mode & 0o777).toBe(st.isDirectory() ? 0o700 : 0o600);
    }
    expect(echoCwd(registry, s.sessionId!)).toBe(path.join(folder, 'work'));
    await registry.close();
    const again = (await setup([echo('echo')], {}, home)).registry;
    expect((await again.sessions.get(s.sessionId!)).messages).toHaveLength(2);
    const next = await again.chat('echo', ask('still there?', { sessionId: s.sessionId }));
    expect(next.message.content).toContain('persist me');
  });

  it('evicts the least recently used beyond the count, and sessions past the age limit', async () => {
    const { registry } = await setup([echo('echo')], { maxSessions: 2 });
    const ids = [];
    for (const n of [1, 2, 3]) ids.push((await registry.chat('echo', ask(`n${n}`))).sessionId!);
    await waitFor(async () => (await registry.sessions.list()).length === 2, 3000, 'eviction');
    await expect(registry.sessions.get(ids[0]!)).rejects.toBeInstanceOf(SessionNotFoundError);
    const aged = await setup([echo('echo')], { maxAgeMs: 1 });
    const old = await aged.registry.chat('echo', ask('short-lived'));
    await new Promise((r) => setTimeout(r, 10));
    await expect(aged.registry.chat('echo', ask('too late', { sessionId: old.sessionId }))).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it("a process killed by SIGKILL mid-turn loses only that turn (a new session's first turn: no session): every other session, and the earlier turns, are intact", async () => {
    const { home, registry } = await setup([echo('echo')]);
    const kept = await registry.chat('echo', ask('kept'));
    await registry.close();
    const child = registryProcess(
      home,
      `async *stream() { console.log('turn started'); await new Promise(() => {}); }`,
      `await Promise.all([
         r.chat('echo', { messages: [{ role: 'user', content: 'lost turn' }], sessionId: ${JSON.stringify(kept.sessionId)} }),
         r.chat('echo', { messages: [{ role: 'user', content: 'lost new session' }] }),
       ]);`,
    );
    let out = '';
    await new Promise<void>((resolve) => child.stdout!.on('data', (c) => (out += c).split('turn started').length > 2 && resolve()));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const after = (await setup([echo('echo')], {}, home)).registry;
    // The new session's first turn never finished: its files (opened while it ran) make no session.
    expect((await after.sessions.list()).map((s) => s.id)).toEqual([kept.sessionId]);
    const detail = await after.sessions.get(kept.sessionId!);
    expect(detail.turns).toBe(1);
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    await after.chat('echo', ask('next', { sessionId: kept.sessionId }));
    expect((await after.sessions.get(kept.sessionId!)).turns).toBe(2);
  });

  it('a session id that was returned survives a SIGKILL right after the answer, and continues', async () => {
    const { home } = await setup([echo('echo')]);
    const child = registryProcess(
      home,
      `async *stream() { yield { type: 'result', result: { message: { role: 'assistant', content: 'first answer' }, usage: {}, metadata: {} } }; }`,
      `const first = await r.chat('echo', { messages: [{ role: 'user', content: 'first' }] });
       const second = await r.chat('echo', { messages: [{ role: 'user', content: 'second' }], sessionId: first.sessionId });
       console.log(second.sessionId);
       await new Promise(() => {});`,
    );
    const id = await new Promise<string>((resolve) => child.stdout!.on('data', (c) => resolve(String(c).trim())));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const after = (await setup([echo('echo')], {}, home)).registry;
    const detail = await after.sessions.get(id);
    expect(detail.turns).toBe(2);
    expect(detail.messages.map((m) => m.content)).toEqual(['first', 'first answer', 'second', 'first answer']);
    await after.chat('echo', ask('third', { sessionId: id }));
    expect((await after.sessions.get(id)).turns).toBe(3);
  });

  it('a new session whose record was cut short by a crash is no session, and its folder goes after an hour', async () => {
    const { registry, dir, home } = await setup([echo('echo')]);
    const kept = await registry.chat('echo', ask('kept'));
    const torn = 'tbs_AAAAAAAAAAAAAAAAAAAAAAAA';
    await mkdir(path.join(dir, torn, 'work'), { recursive: true });
    await writeFile(path.join(dir, torn, 'transcript.jsonl'), '{"role":"user","content":"lost","at":"2026-01-01T00:00:00.000Z"}\n');
    await writeFile(path.join(dir, torn, 'session.json'), '{"version":1,"id":"tbs_AAAAAAAAAAAAAAAAAAAAAAAA","toolId":"ec');
    await expect(registry.sessions.get(torn)).rejects.toBeInstanceOf(SessionNotFoundError);
    const hourAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(path.join(dir, torn), hourAgo, hourAgo);
    const fresh = (await setup([echo('echo')], {}, home)).registry;
    expect((await fresh.sessions.list()).map((s) => s.id)).toEqual([kept.sessionId]);
    expect(await readdir(dir)).toEqual([kept.sessionId]);
  });
});

/** A registry of the built core in a process of its own, over `home`, with an `echo` tool whose `stream` is given; runs `script` (the registry is `r`). */
function registryProcess(home: string, stream: string, script: string) {
  const core = fileURLToPath(new URL('../../dist/runtime.js', import.meta.url));
  const source = `import { createRegistry } from ${JSON.stringify(core)};
    const adapter = { specificationVersion: 'v1', id: 'echo', name: 'echo', type: 'agent', capabilities: [], features: {}, configSchema: {},
      detect: async () => ({ available: true, models: [] }), ${stream} };
    const r = createRegistry({ adapters: [adapter], env: { HOME: ${JSON.stringify(home)} } });
    ${script}`;
  return spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The cwd the echo tool ran in for a session (its last call). */
function echoCwd(registry: ToolRegistry, _sessionId: string): string {
  const tool = registry.adapter('echo') as ScriptedAdapter;
  return tool.calls.at(-1)!.ctx.cwd;
}
