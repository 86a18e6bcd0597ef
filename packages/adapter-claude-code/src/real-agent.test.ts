import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Activity, ChatResult, PermissionLevel } from '@toolbridge/core';
import type { ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { agentScript, startMockAnthropic, toolNames, type MockAnthropicServer } from './testing/index.js';
import { realClaudeRegistry } from './testing/real.js';

/** Agent steps and permission levels with the real `claude` 2.1.330: the mock model asks for a command and file writes. */
describe('real claude: activity and permissions', () => {
  let server: MockAnthropicServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  let registry: ToolRegistry;
  let n = 0;

  beforeAll(async () => {
    server = await startMockAnthropic();
    tmp = await makeTempDir('tb-claude-agent-');
    registry = (await realClaudeRegistry(server.url, path.join(tmp.dir, 'home'))).registry;
  });
  afterAll(async () => {
    await registry?.close();
    await server?.close();
    await tmp?.cleanup();
  });

  /** A fresh project directory (and a sibling outside it) for one task. */
  const project = async () => {
    const root = path.join(tmp.dir, `task-${++n}`);
    await mkdir(path.join(root, 'work'), { recursive: true });
    await mkdir(path.join(root, 'outside'), { recursive: true });
    return { cwd: path.join(root, 'work'), outside: path.join(root, 'outside') };
  };
  const run = async (permissions: PermissionLevel, cwd: string, additionalDirs: string[] = []) => {
    const activity: Activity[] = [];
    let result: ChatResult | undefined;
    const request = { messages: [{ role: 'user' as const, content: 'Do the file task.' }], cwd, permissions, additionalDirs };
    for await (const e of registry.stream('claude-code', request, { timeoutMs: 120_000 })) {
      if (e.type === 'activity') activity.push(e.activity);
      if (e.type === 'result') result = e.result;
    }
    return { activity, result: result! };
  };
  const updatesOf = (activity: Activity[], id: string) => activity.filter((a) => a.id === id);

  it('workspace-write: the command arrives started → completed with its exit code; the written file exists and is a file_change', async () => {
    const { cwd, outside } = await project();
    server.behavior = {
      mode: 'script',
      script: agentScript([
        { name: 'Bash', input: { command: 'echo hi > out.txt', description: 'Write hi to out.txt' } },
        { name: 'Write', input: { file_path: path.join(cwd, 'written.txt'), content: 'inside\n' } },
        { name: 'Bash', input: { command: 'ls no-such-dir', description: 'List a missing directory' } },
        { name: 'Write', input: { file_path: path.join(outside, 'escaped.txt'), content: 'outside\n' } },
      ]),
    };
    const { activity, result } = await run('workspace-write', cwd);
    const command = activity.find((a) => a.kind === 'command')!;
    expect(updatesOf(activity, command.id).map((a) => a.status)).toEqual(['started', 'completed']);
    expect(updatesOf(activity, command.id)[1]).toMatchObject({ command: 'echo hi > out.txt', exitCode: 0 });
    expect(await readFile(path.join(cwd, 'out.txt'), 'utf8')).toBe('hi\n');

    const write = activity.find((a) => a.kind === 'file_change')!;
    expect(updatesOf(activity, write.id).map((a) => a.status)).toEqual(['started', 'completed']);
    expect(await readFile(path.join(cwd, 'written.txt'), 'utf8')).toBe('inside\n');
    // Paths inside the working directory are relative (core), in the stream and in the result.
    expect(result.activities).toContainEqual(
      expect.objectContaining({ id: write.id, status: 'completed', changes: [{ path: 'written.txt', kind: 'add' }] }),
    );

    const failing = activity.filter((a) => a.kind === 'command' && a.status !== 'started')[1];
    expect(failing).toMatchObject({ status: 'failed', exitCode: 2, outputTail: expect.stringContaining('no-such-dir') });
    // Outside the working directory: denied, and the event says so.
    const escaped = result.activities!.filter((a) => a.kind === 'file_change')[1];
    expect(escaped).toMatchObject({ status: 'failed', title: expect.stringContaining('denied') });
    expect(existsSync(path.join(outside, 'escaped.txt'))).toBe(false);
    expect(result.metadata).toMatchObject({
      permissions: { requested: 'workspace-write', applied: 'workspace-write', source: 'request' },
      permissionDenials: 1,
    });
  }, 180_000);

  it('additionalDirs: workspace-write may write there too', async () => {
    const { cwd, outside } = await project();
    server.behavior = {
      mode: 'script',
      script: agentScript([{ name: 'Write', input: { file_path: path.join(outside, 'shared.txt'), content: 'ok\n' } }]),
    };
    const { result } = await run('workspace-write', cwd, [outside]);
    expect(result.activities).toEqual([expect.objectContaining({ kind: 'file_change', status: 'completed' })]);
    expect(await readFile(path.join(outside, 'shared.txt'), 'utf8')).toBe('ok\n');
  }, 120_000);

  it('read-only: only the read tools are offered; a write fails, says so, and no file appears', async () => {
    const { cwd } = await project();
    const before = server.messageRequests().length;
    server.behavior = {
      mode: 'script',
      script: agentScript(
        [
          { name: 'Write', input: { file_path: path.join(cwd, 'written.txt'), content: 'inside\n' } },
          { name: 'Bash', input: { command: 'echo hi > out.txt', description: 'Write hi' } },
        ],
        'Could not.',
        { always: true },
      ),
    };
    const { activity, result } = await run('read-only', cwd);
    expect(toolNames(server.messageRequests()[before]!.body).filter((t) => !t.startsWith('Deferred'))).toEqual(['Glob', 'Grep', 'Read']);
    const done = activity.filter((a) => a.status !== 'started');
    expect(done.map((a) => [a.kind, a.status])).toEqual([
      ['file_change', 'failed'],
      ['command', 'failed'],
    ]);
    expect(done[0]!.title).toMatch(/No such tool available: Write/);
    expect(existsSync(path.join(cwd, 'written.txt'))).toBe(false);
    expect(existsSync(path.join(cwd, 'out.txt'))).toBe(false);
    expect(result.metadata.permissions).toEqual({ requested: 'read-only', applied: 'read-only', source: 'request' });
  }, 120_000);
});
