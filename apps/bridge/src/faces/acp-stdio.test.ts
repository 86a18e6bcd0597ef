import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, ndJsonStream, type ClientConnection, type SessionNotification } from '@agentclientprotocol/sdk';
import { makeTempDir, waitFor } from '@toolbridge/test-suite/kit';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { FACE_FIXTURE, fromSource, REPO_ROOT } from '../testing/faces.js';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('toolbridge acp (stdio), driven by the ACP SDK client', () => {
  let child: ChildProcess;
  let connection: ClientConnection;
  let dir: string;
  let cleanup: () => Promise<void>;
  const updates: SessionNotification[] = [];
  const marks = () => (existsSync(path.join(dir, 'marks')) ? readFileSync(path.join(dir, 'marks'), 'utf8').trim().split('\n') : []);
  const updatesOf = (sessionId: string) => updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir('toolbridge-acp-'));
    child = spawn(process.execPath, fromSource(FACE_FIXTURE, 'acp'), {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        FACE_FIXTURE_MARKS: path.join(dir, 'marks'),
        FACE_FIXTURE_SESSIONS: path.join(dir, 's'),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    connection = client({ name: 'test-editor' })
      .onNotification('session/update', ({ params }) => void updates.push(params))
      .connect(stream);
    const init = await connection.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { image: true } });
    expect(init.agentInfo?.name).toBe('toolbridge');
  }, 60_000);
  afterAll(async () => {
    connection?.close();
    child?.stdin?.end();
    await waitFor(() => child.exitCode !== null || child.signalCode !== null, 10_000, 'the agent to exit').catch(() => child.kill());
    await cleanup?.();
  });

  it('session/new offers the config option tool (auto plus each available tool); a prompt with text and an image streams the answer, activity and plan', async () => {
    const session = await connection.agent.request('session/new', { cwd: dir, mcpServers: [] });
    expect(session.configOptions).toEqual([
      expect.objectContaining({
        id: 'tool',
        type: 'select',
        currentValue: 'auto',
        options: [
          expect.objectContaining({ value: 'auto' }),
          expect.objectContaining({ value: 'worker' }),
          expect.objectContaining({ value: 'hanging' }),
        ],
      }),
    ]);
    const result = await connection.agent.request('session/prompt', {
      sessionId: session.sessionId,
      prompt: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
    });
    expect(result.stopReason).toBe('end_turn');
    expect(result._meta).toMatchObject({ toolbridge: { toolId: 'worker', sessionId: expect.stringMatching(/^tbs_/) } });
    const seen = updatesOf(session.sessionId);
    expect(seen).toEqual([
      expect.objectContaining({
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        kind: 'execute',
        title: 'Run npm test',
        status: 'in_progress',
        rawInput: { command: 'npm test' },
      }),
      { sessionUpdate: 'plan', entries: [{ content: 'run the tests', priority: 'medium', status: 'completed' }] },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'worker ' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'answers' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ' with 1 image(s)' } },
    ]);
    // The next prompt of the ACP session continues the same Toolbridge session.
    await connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(
      updatesOf(session.sessionId)
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => (u as { content: { text: string } }).content.text),
    ).toContain(' again');
  });

  it('session/set_config_option picks one tool; session/cancel stops its turn within 2 s', async () => {
    const session = await connection.agent.request('session/new', { cwd: dir, mcpServers: [] });
    const set = await connection.agent.request('session/set_config_option', {
      sessionId: session.sessionId,
      configId: 'tool',
      value: 'hanging',
    });
    expect(set.configOptions[0]).toMatchObject({ currentValue: 'hanging' });
    await expect(
      connection.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'tool', value: 'nope' }),
    ).rejects.toThrow(/nope/);
    const pending = connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'wait' }] });
    await waitFor(() => marks().some((l) => l.startsWith('start hanging')), 10_000, 'the turn to start');
    const cancelledAt = Date.now();
    await connection.agent.notify('session/cancel', { sessionId: session.sessionId });
    expect((await pending).stopReason).toBe('cancelled');
    await waitFor(() => marks().some((l) => l.startsWith('end hanging')), 2_000, 'the turn to end');
    expect(
      Number(
        marks()
          .find((l) => l.startsWith('end hanging'))!
          .split(' ')[2],
      ) - cancelledAt,
    ).toBeLessThan(2_000);
  });

  it('session/load continues a Toolbridge session, replaying its transcript first', async () => {
    const first = await connection.agent.request('session/new', { cwd: dir, mcpServers: [] });
    const answered = await connection.agent.request('session/prompt', {
      sessionId: first.sessionId,
      prompt: [{ type: 'text', text: 'remember this' }],
    });
    const toolbridgeSessionId = (answered._meta as { toolbridge: { sessionId: string } }).toolbridge.sessionId;
    await connection.agent.request('session/load', { sessionId: toolbridgeSessionId, cwd: dir, mcpServers: [] });
    expect(updatesOf(toolbridgeSessionId)).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'remember this' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'worker answers' } },
    ]);
    await connection.agent.request('session/prompt', { sessionId: toolbridgeSessionId, prompt: [{ type: 'text', text: 'go on' }] });
    expect(updatesOf(toolbridgeSessionId).map((u) => (u as { content?: { text?: string } }).content?.text)).toContain(' again');
    await expect(connection.agent.request('session/load', { sessionId: 'tbs_doesnotexist1', cwd: dir, mcpServers: [] })).rejects.toThrow(
      /session_not_found|not found/,
    );
  });
});
