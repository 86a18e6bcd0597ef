import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { InvalidRequestError, type Activity, type ChatRequest, type StreamEvent } from '@toolbridge/core';
import { startRealOpenCode, type RealOpenCode } from './testing/real-opencode.js';

/** Agent tasks with the real `opencode run` against the mock: activity, permission levels, images. */

const T = { timeoutMs: 90_000 };
// A 1x1 PNG.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let oc: RealOpenCode;
beforeAll(async () => {
  oc = await startRealOpenCode({ kind: 'steps', steps: [{ text: 'unused' }] });
});
afterAll(async () => {
  await oc?.close();
});

async function streamed(request: ChatRequest): Promise<{ activities: Activity[]; events: StreamEvent[] }> {
  const events: StreamEvent[] = [];
  for await (const e of oc.registry.stream('opencode', request, T)) events.push(e);
  return { events, activities: events.flatMap((e) => (e.type === 'activity' ? [e.activity] : [])) };
}

describe('real opencode 1.18.33: activity and permissions', () => {
  it('full: the command arrives started → completed with its exit code, the written file exists and is a file_change', async () => {
    const cwd = await mkdtemp(path.join(oc.home, 'task-'));
    oc.mock.behaviour = {
      kind: 'steps',
      steps: [
        { calls: [{ name: 'bash', args: { command: 'echo made > by-bash.txt && echo bash-ok', description: 'make a file' } }] },
        { calls: [{ name: 'write', args: { filePath: path.join(cwd, 'notes.txt'), content: 'hello notes\n' } }] },
        { text: 'Done.' },
      ],
    };
    const { events, activities } = await streamed({
      messages: [{ role: 'user', content: 'Run a command and write notes.txt' }],
      cwd,
      permissions: 'full',
    });
    const command = activities.filter((a) => a.kind === 'command');
    expect(command.map((a) => a.status)).toEqual(['started', 'completed']);
    expect(new Set(command.map((a) => a.id)).size).toBe(1);
    expect(command[1]).toMatchObject({ command: 'echo made > by-bash.txt && echo bash-ok', exitCode: 0, outputTail: 'bash-ok' });
    const write = activities.filter((a) => a.kind === 'file_change');
    expect(write.map((a) => a.status)).toEqual(['started', 'completed']);
    expect(write[1]).toMatchObject({ changes: [{ path: 'notes.txt', kind: 'add' }] });
    expect(readFileSync(path.join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\n');
    expect(readFileSync(path.join(cwd, 'by-bash.txt'), 'utf8')).toBe('made\n');
    const result = events.at(-1);
    if (result?.type !== 'result') throw new Error('no result');
    expect(result.result.message.content).toBe('Done.');
    expect(result.result.metadata.permissions).toMatchObject({ requested: 'full', applied: 'full' });
    expect(result.result.activities?.map((a) => [a.kind, a.status])).toEqual([
      ['command', 'completed'],
      ['file_change', 'completed'],
    ]);
  }, 300_000);

  it('workspace-write: no shell (OpenCode has no sandbox): a redirect outside cwd writes nothing, while a file write inside cwd works', async () => {
    const cwd = await mkdtemp(path.join(oc.home, 'task-'));
    const outside = path.join(oc.home, `outside-${process.pid}.txt`);
    oc.mock.behaviour = {
      kind: 'steps',
      steps: [
        { calls: [{ name: 'bash', args: { command: `echo escaped > ${outside}`, description: 'escape' } }] },
        { calls: [{ name: 'write', args: { filePath: path.join(cwd, 'inside.txt'), content: 'inside\n' } }] },
        { text: 'Done.' },
      ],
    };
    const { events, activities } = await streamed({ messages: [{ role: 'user', content: 'Escape' }], cwd, permissions: 'workspace-write' });
    expect(existsSync(outside)).toBe(false);
    expect(readFileSync(path.join(cwd, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(activities.filter((a) => a.kind === 'tool_call').at(-1)).toMatchObject({ status: 'failed', name: 'bash' });
    const offered = oc.mock.requests.at(-1)!.body.tools?.map((t) => t.function?.name) ?? [];
    expect(offered).not.toContain('bash');
    expect(offered).toContain('write');
    const result = events.at(-1);
    if (result?.type !== 'result') throw new Error('no result');
    expect(result.result.metadata.permissions).toMatchObject({
      applied: 'workspace-write',
      note: expect.stringContaining('bash is refused'),
    });
  }, 300_000);

  it('read-only: the write is refused (the event says so) and the file does not appear', async () => {
    const cwd = await mkdtemp(path.join(oc.home, 'task-'));
    const target = path.join(cwd, 'refused.txt');
    oc.mock.behaviour = {
      kind: 'steps',
      steps: [{ calls: [{ name: 'write', args: { filePath: target, content: 'no\n' } }] }, { text: 'Could not write.' }],
    };
    const { activities } = await streamed({ messages: [{ role: 'user', content: 'Write refused.txt' }], cwd, permissions: 'read-only' });
    const refused = activities.filter((a) => a.kind === 'tool_call');
    expect(refused.map((a) => a.status)).toEqual(['started', 'failed']);
    expect(refused[1]).toMatchObject({ name: 'write', title: expect.stringContaining("unavailable tool 'write'") });
    expect(existsSync(target)).toBe(false);
    // OpenCode removes the tool from what the model is offered.
    const offered = oc.mock.requests.at(-1)!.body.tools?.map((t) => t.function?.name) ?? [];
    expect(offered).not.toContain('write');
    expect(offered).not.toContain('bash');
  }, 300_000);
});

describe('real opencode 1.18.33: images', () => {
  it("the image's bytes reach the model intact, and the temporary file is gone after the call", async () => {
    oc.mock.behaviour = { kind: 'steps', steps: [{ text: 'A pixel.' }] };
    const at = oc.mock.requests.length;
    const result = await oc.registry.chat(
      'opencode',
      {
        model: 'mock/mock-vision',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', mediaType: 'image/png', data: PIXEL },
            ],
          },
        ],
      },
      T,
    );
    expect(result.message.content).toBe('A pixel.');
    const sent = JSON.stringify(oc.mock.requests.slice(at).map((r) => r.body.messages));
    expect(sent).toContain(`data:image/png;base64,${PIXEL}`);
    expect(sent).toContain('What is this?');
    expect(oc.scratchDirs.length).toBeGreaterThan(0);
    for (const dir of oc.scratchDirs) expect(existsSync(dir)).toBe(false);
  }, 300_000);

  it('an image to a model without image input is refused before anything runs', async () => {
    const at = oc.mock.requests.length;
    const error = await oc.registry
      .chat(
        'opencode',
        { messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: PIXEL }] }], model: 'mock/mock-model' },
        T,
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain('mock/mock-model does not take images');
    expect(oc.mock.requests.length).toBe(at);
  }, 300_000);
});
