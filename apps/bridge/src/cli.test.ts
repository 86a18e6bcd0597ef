import { describe, expect, it } from '@jest/globals';
import { createToolbridge } from 'toolbridge';
import { runCli, USAGE } from './cli-main.js';
import { formatDoctor, formatUsage } from './doctor.js';
import type { UsageSummary } from '@toolbridge/core';
import type { RunningBridge } from './server.js';
import { memoryAdapter } from './testing/adapters.js';

function capture(extra: { env?: NodeJS.ProcessEnv } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  let stop!: () => void;
  const shutdown = new Promise<void>((r) => (stop = r));
  let onListening!: (r: RunningBridge) => void;
  const listening = new Promise<RunningBridge>((resolve) => (onListening = resolve));
  const io = {
    stdout: (t: string) => void out.push(t),
    stderr: (t: string) => void err.push(t),
    env: extra.env ?? {},
    shutdown,
    toolbridge: createToolbridge({ adapters: [memoryAdapter('alpha')], env: {} }),
    onListening,
  };
  return { io, out, err, stop, listening, stdout: () => out.join(''), stderr: () => err.join('') };
}

describe('toolbridge command', () => {
  it('--help prints usage and exits 0; no command exits 2', async () => {
    const c = capture();
    expect(await runCli(['--help'], c.io)).toBe(0);
    expect(c.stdout()).toBe(USAGE);
    expect(c.stdout()).toMatch(/serve[\s\S]*doctor[\s\S]*--port[\s\S]*--token[\s\S]*--allow-origin/);
    const none = capture();
    expect(await runCli([], none.io)).toBe(2);
    expect(none.stderr()).toContain('Usage: toolbridge');
  });

  it.each([
    [['serve', '--prot', '1'], /Unknown option '--prot'/],
    [['serve', '--port'], /--port/],
    [['serve', '--port', 'abc'], /--port must be a number/],
    [['serve', '--port', '99999'], /--port must be a number/],
    [['serve', 'extra'], /positional/i],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['doctor', '--jsn'], /Unknown option '--jsn'/],
    [['serve', '--max-concurrent', '0'], /--max-concurrent must be a number ≥ 1 or tool=number \(got "0"\)/],
    [['serve', '--max-queued', 'codex=lots'], /--max-queued must be a number ≥ 0 or tool=number/],
  ])('%j is a usage error: message and exit 2', async (argv, message) => {
    const c = capture();
    expect(await runCli(argv, c.io)).toBe(2);
    expect(c.stderr()).toMatch(message);
    expect(c.stderr()).toContain('toolbridge --help');
  });

  it('serve prints "listening on <url>" as the first stdout line, serves, and closes on shutdown with 0', async () => {
    const c = capture();
    const exit = runCli(['serve', '--port', '0', '--quiet'], c.io);
    const running = await c.listening;
    const firstLine = c.stdout().split('\n')[0];
    expect(firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(firstLine).toBe(`listening on ${running.url}`);
    const res = await fetch(`${running.url}/chat/alpha`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    c.stop();
    expect(await exit).toBe(0);
    await expect(fetch(`${running.url}/config`)).rejects.toThrow();
    expect(c.stderr()).toBe('');
  });

  it('serve logs one JSON line per request to stderr unless --quiet', async () => {
    const c = capture();
    const exit = runCli(['serve', '--port', '0'], c.io);
    const running = await c.listening;
    await (await fetch(`${running.url}/health/alpha`)).text();
    c.stop();
    await exit;
    const lines = c
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ method: 'GET', route: '/health/:toolId', status: 200, toolId: 'alpha' })]);
  });

  it('serve takes the token from TOOLBRIDGE_TOKEN, and --allow-origin', async () => {
    const c = capture({ env: { TOOLBRIDGE_TOKEN: 'env-token-123' } });
    const exit = runCli(['serve', '--port', '0', '--quiet', '--allow-origin', 'http://localhost:5173'], c.io);
    const running = await c.listening;
    expect((await fetch(`${running.url}/config`)).status).toBe(401);
    const ok = await fetch(`${running.url}/config`, {
      headers: { authorization: 'Bearer env-token-123', origin: 'http://localhost:5173' },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    c.stop();
    expect(await exit).toBe(0);
  });

  it('serve refuses a non-loopback host without a token (exit 2), and a busy port (exit 1)', async () => {
    const c = capture();
    expect(await runCli(['serve', '--port', '0', '--host', '0.0.0.0'], c.io)).toBe(2);
    expect(c.stderr()).toMatch(/without a token/);
    expect(c.stdout()).toBe('');

    const first = capture();
    const exit = runCli(['serve', '--port', '0', '--quiet'], first.io);
    const running = await first.listening;
    const second = capture();
    expect(await runCli(['serve', '--port', String(running.port), '--quiet'], second.io)).toBe(1);
    expect(second.stderr()).toMatch(/already in use/);
    first.stop();
    await exit;
  });

  it('serve --max-concurrent/--max-queued set the limits, for every tool or per tool', async () => {
    const c = capture();
    const { toolbridge: _given, ...io } = c.io;
    const exit = runCli(
      ['serve', '--port', '0', '--quiet', '--max-concurrent', '2', '--max-concurrent', 'ollama=5', '--max-queued', '0'],
      io,
    );
    const running = await c.listening;
    const health = (await (await fetch(`${running.url}/health`)).json()) as { tools: Array<{ toolId: string; load: unknown }> };
    const load = Object.fromEntries(health.tools.map((t) => [t.toolId, t.load]));
    // Codex's and Claude Code's transports (warm by default, with their pools' figures) are their own tests' business.
    expect(load.codex).toMatchObject({ maxConcurrent: 2, maxQueued: 0, active: 0, queued: 0 });
    expect(load['claude-code']).toMatchObject({ maxConcurrent: 2, maxQueued: 0, active: 0, queued: 0 });
    expect(load.ollama).toEqual({ maxConcurrent: 5, maxQueued: 0, active: 0, queued: 0, transport: 'http' });
    c.stop();
    expect(await exit).toBe(0);

    const unknown = capture();
    const { toolbridge: _g2, ...io2 } = unknown.io;
    expect(await runCli(['serve', '--port', '0', '--max-concurrent', 'nope=2'], io2)).toBe(2);
    expect(unknown.stderr()).toMatch(/concurrency is set for unknown tool "nope"/);
  });

  it('doctor prints a table of tools: installed, version, auth, usage windows', async () => {
    const toolbridge = createToolbridge({
      env: {},
      adapters: [
        memoryAdapter('codex', {
          version: 'codex-cli 0.169.0',
          usageLimits: {
            status: 'available',
            source: 'local_session',
            plan: 'plus',
            windows: {
              five_hour: { usedPercentage: 42.5, remainingPercentage: 57.5, resetsAt: new Date(Date.now() + 90 * 60_000).toISOString() },
              seven_day: { usedPercentage: 7, remainingPercentage: 93 },
            },
          },
        }),
        memoryAdapter('claude-code', { login: 'logged-out' }),
        memoryAdapter('opencode', { available: false }),
        memoryAdapter('ollama', { type: 'runtime', login: 'none', version: '0.9.0' }),
      ],
    });
    const c = capture();
    expect(await runCli(['doctor'], { ...c.io, toolbridge })).toBe(0);
    const lines = c.stdout().split('\n');
    expect(lines[0]).toMatch(/^TOOL\s+INSTALLED\s+VERSION\s+AUTH\s+USAGE$/);
    expect(lines[1]).toMatch(
      /^codex\s+yes\s+codex-cli 0\.169\.0\s+logged in \(api_key\)\s+plus: five_hour 43% used, resets in 1h(29|30)m; seven_day 7% used$/,
    );
    expect(lines[2]).toMatch(/^claude-code\s+yes\s+1\.2\.3\s+NOT logged in\s+-$/);
    expect(lines[3]).toMatch(/^opencode\s+no\s+-\s+/);
    expect(lines[4]).toMatch(/^ollama\s+yes\s+0\.9\.0\s+not needed\s+-$/);
    expect(c.stdout()).toContain('opencode: opencode is not installed');
    expect(c.stdout()).toContain('claude-code: claude-code is not logged in');

    const j = capture();
    expect(await runCli(['doctor', '--json'], { ...j.io, toolbridge })).toBe(0);
    const parsed = JSON.parse(j.stdout()) as { tools: unknown[]; health: unknown[] };
    expect(parsed.tools).toHaveLength(4);
    expect(parsed.health).toHaveLength(4);
    await toolbridge.close();
  });

  it('formatDoctor aligns columns', () => {
    const text = formatDoctor(
      [{ id: 'a', name: 'A', type: 'agent', available: true, version: '1', capabilities: [], models: [] }],
      [
        {
          toolId: 'a',
          status: 'healthy',
          available: true,
          authSupported: false,
          authenticated: true,
          authStatus: 'not_required',
          latencyMs: 1,
          checkedAt: '',
        },
      ],
    );
    expect(text).toBe('TOOL  INSTALLED  VERSION  AUTH        USAGE\na     yes        1        not needed  -\n');
  });

  it('formatUsage prints chats and tokens per tool, tokens per day and the latest windows', () => {
    const summary = (groups: UsageSummary['groups']): UsageSummary => ({
      since: '2026-03-03T00:00:00.000Z',
      until: '2026-03-10T00:00:00.000Z',
      groupBy: 'tool',
      groups,
    });
    const codex = { key: 'codex', chats: 3, succeeded: 2, failed: 1, inputTokens: 100, outputTokens: 20, cachedInputTokens: 40 };
    const text = formatUsage(
      summary([codex, { ...codex, key: 'claude-code', chats: 1, succeeded: 1, failed: 0, costUsd: 0.0123 }]),
      [
        { day: '2026-03-08', summary: summary([]) },
        { day: '2026-03-09', summary: summary([codex]) },
      ],
      [
        {
          toolId: 'codex',
          at: '2026-03-09T10:00:00.000Z',
          windows: { five_hour: { usedPercentage: 40, remainingPercentage: 60, resetsAt: '2026-03-09T12:30:00.000Z' } },
        },
      ],
      new Date('2026-03-09T11:00:00.000Z'),
    );
    expect(text).toBe(
      [
        'Usage since 2026-03-03:',
        '  TOOL         CHATS  OK  FAILED  INPUT  OUTPUT  CACHED  COST',
        '  codex        3      2   1       100    20      40      -',
        '  claude-code  1      1   0       100    20      40      $0.0123',
        '',
        'Tokens per day (input + output):',
        '  2026-03-08  -',
        '  2026-03-09  codex 120',
        '',
        'Usage windows over time:',
        '  codex',
        '    2026-03-09 10:00  five_hour 40% used, resets in 1h30m',
        '',
      ].join('\n'),
    );
  });
});
