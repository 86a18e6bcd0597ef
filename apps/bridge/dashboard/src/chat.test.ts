import { describe, expect, it } from '@jest/globals';
import { attemptRow, chatCall, mcpServersOf, metadataFacts, moveItem, responseFormatOf, summarizeDone, type ChatDone } from './chat.js';

const form = { mode: 'single' as const, toolId: 'ollama', providers: [], prompt: 'Say hello', model: '' };

describe('chatCall', () => {
  it('streams one tool at /chat/:toolId, with a model only when one is typed', () => {
    expect(chatCall(form)).toEqual({ path: '/chat/ollama', body: { messages: [{ role: 'user', content: 'Say hello' }], stream: true } });
    expect(chatCall({ ...form, model: ' qwen3:14b ' })).toMatchObject({ body: { model: 'qwen3:14b' } });
  });

  it('sends a fallback list in its order to /chat', () => {
    expect(chatCall({ ...form, mode: 'fallback', providers: ['claude-code', 'ollama'] })).toEqual({
      path: '/chat',
      body: { providers: ['claude-code', 'ollama'], messages: [{ role: 'user', content: 'Say hello' }], stream: true },
    });
  });

  it('refuses to send an empty prompt, no tool, or an empty fallback list', () => {
    expect(chatCall({ ...form, prompt: '  ' })).toEqual({ error: 'Type a prompt first.' });
    expect(chatCall({ ...form, toolId: '' })).toEqual({ error: 'Pick a tool.' });
    expect(chatCall({ ...form, mode: 'fallback', providers: [] })).toHaveProperty('error');
  });

  it('escapes the tool id in the path', () => {
    expect(chatCall({ ...form, toolId: 'a/b' })).toMatchObject({ path: '/chat/a%2Fb' });
  });
});

describe('moveItem', () => {
  it('moves an item up or down and stops at the ends', () => {
    expect(moveItem(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveItem(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveItem(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveItem(['a', 'b', 'c'], 5, 1)).toEqual(['a', 'b', 'c']);
  });
});

describe('summarizeDone', () => {
  it('shows model, latency, token usage and the attempts of a fallback', () => {
    const summary = summarizeDone({
      toolId: 'ollama',
      type: 'runtime',
      model: 'llama3.2:1b',
      latencyMs: 1520,
      fallbackUsed: true,
      result: { message: { role: 'assistant', content: 'Hello' }, usage: { input_tokens: 12, output_tokens: 3 } },
      attempts: [
        { toolId: 'claude-code', tryIndex: 0, stage: 'preflight', outcome: 'skipped', reason: 'unauthenticated', latencyMs: 0 },
        { toolId: 'ollama', tryIndex: 0, stage: 'execution', outcome: 'succeeded', latencyMs: 1500 },
      ],
    });
    expect(summary.answer).toBe('Hello');
    expect(summary.facts).toEqual([
      ['Tool', 'ollama'],
      ['Model', 'llama3.2:1b'],
      ['Latency', '1.5 s'],
      ['Fallback used', 'yes'],
    ]);
    expect(summary.usage).toEqual([
      ['input', '12'],
      ['output', '3'],
    ]);
    expect(summary.attempts.map(attemptRow)).toEqual([
      ['claude-code', '1', 'preflight', 'skipped', 'unauthenticated', '0 ms'],
      ['ollama', '1', 'execution', 'succeeded', '–', '1.5 s'],
    ]);
  });

  it('copes with a bare response', () => {
    // What arrives over the network is read defensively, whatever its type says.
    expect(summarizeDone({ toolId: 'x' } as ChatDone)).toEqual({ answer: '', facts: [['Tool', 'x']], usage: [], attempts: [] });
  });
});

describe('chatCall with the agent options', () => {
  it('sends the permission level, folder, schema, images and the session to continue', () => {
    const image = { type: 'image' as const, data: 'AQ==', mediaType: 'image/png' as const };
    const call = chatCall({
      ...form,
      permissions: 'workspace-write',
      cwd: ' /tmp/project ',
      schema: '{"type":"object","properties":{"n":{"type":"integer"}}}',
      images: [image],
      session: { id: 'tbs_abcdefgh', fork: true },
    });
    expect(call).toEqual({
      path: '/chat/ollama',
      body: {
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }, image] }],
        stream: true,
        permissions: 'workspace-write',
        cwd: '/tmp/project',
        responseFormat: { type: 'json_schema', schema: { type: 'object', properties: { n: { type: 'integer' } } } },
        sessionId: 'tbs_abcdefgh',
        fork: true,
      },
    });
    expect(chatCall({ ...form, prompt: '', images: [image] })).toMatchObject({ body: { messages: [{ content: [image] }] } });
  });

  it('refuses a schema that is not a JSON object before sending', () => {
    expect(responseFormatOf('{"type": ')).toMatchObject({ error: expect.stringMatching(/^The JSON schema is not valid JSON/) });
    expect(responseFormatOf('[1]')).toEqual({ error: 'The JSON schema must be a JSON object.' });
    expect(responseFormatOf('  ')).toEqual({});
    expect(chatCall({ ...form, schema: 'nope' })).toHaveProperty('error');
  });

  it('sends the typed MCP servers as mcpServers, and refuses a bad entry by its number and name, never its values', () => {
    const servers = [
      { name: 'files', command: 'npx', args: ['-y', 'srv'], env: { TOKEN: 'secret-1' } },
      { name: 'remote', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer secret-2' } },
    ];
    expect(chatCall({ ...form, mcpServers: JSON.stringify(servers) })).toMatchObject({ body: { mcpServers: servers } });
    expect(chatCall({ ...form, mcpServers: ' [] ' })).not.toHaveProperty('body.mcpServers');
    expect(mcpServersOf('')).toEqual({});
    expect(mcpServersOf('{"name": ')).toEqual({ error: 'The MCP servers are not valid JSON.' });
    expect(mcpServersOf('{"files": {}}')).toMatchObject({ error: expect.stringMatching(/^The MCP servers must be a JSON list/) });
    const problem = (entry: unknown) => (mcpServersOf(JSON.stringify([servers[0], entry])) as { error: string }).error;
    expect(problem({ name: 'x', command: 'a', url: 'https://b' })).toBe(
      'MCP server 2 ("x") needs exactly one of "command" (a local server) or "url" (a remote one).',
    );
    expect(problem({ name: 'bad name', command: 'a' })).toBe(
      'MCP server 2 ("bad name") needs a "name" of letters, digits, _ or - (up to 64).',
    );
    expect(problem({ name: 'x', url: 'ftp://b' })).toBe('MCP server 2 ("x") "url" must be an http or https address.');
    expect(problem({ name: 'x', command: 'a', env: { 'BAD-NAME': 'secret-3' } })).toBe(
      'MCP server 2 ("x") "env" has an invalid entry "BAD-NAME".',
    );
    expect(problem({ name: 'x', command: 'a', args: [1] })).toBe('MCP server 2 ("x") "args" must be a list of strings.');
    expect(problem({ name: 'x', command: 'a', cwd: '/' })).toBe('MCP server 2 ("x") has an unknown field "cwd".');
    expect(problem({ name: 'x', url: 'https://b', headers: { A: 1 } })).toBe('MCP server 2 ("x") "headers" has an invalid entry "A".');
    expect(chatCall({ ...form, mcpServers: '[{"name": "x"}]' })).toHaveProperty('error');
  });
});

describe('summarizeDone with sessions, objects and metadata', () => {
  it('shows the session, the object pretty-printed, the transport and the permissions applied', () => {
    const s = summarizeDone({
      toolId: 'codex',
      type: 'agent',
      model: 'gpt-5',
      latencyMs: 900,
      sessionId: 'tbs_abcdefgh',
      result: {
        message: { role: 'assistant', content: '{"n":1}' },
        usage: {},
        object: { n: 1 },
        metadata: { transport: 'warm', permissions: { requested: 'full', applied: 'workspace-write', note: 'narrowed' } },
      },
    });
    expect(s.object).toBe('{\n  "n": 1\n}');
    expect(s.facts).toEqual([
      ['Tool', 'codex'],
      ['Model', 'gpt-5'],
      ['Latency', '900 ms'],
      ['Transport', 'warm'],
      ['Permissions', 'workspace-write (asked: full)'],
      ['Permissions note', 'narrowed'],
      ['Session', 'tbs_abcdefgh'],
    ]);
    expect(metadataFacts({ permissions: { level: 'read-only', source: 'request' } })).toEqual([['Permissions', 'read-only']]);
    const plain: ChatDone = {
      toolId: 'x',
      type: 'runtime',
      model: 'm',
      latencyMs: 1,
      result: { message: { role: 'assistant', content: 'hi' }, usage: {} },
    };
    expect(summarizeDone(plain).object).toBeUndefined();
  });
});
