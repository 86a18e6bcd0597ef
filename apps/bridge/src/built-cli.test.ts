import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { makeFakeMachine, type FakeMachine } from 'toolbridge/testing';
import { waitFor } from '@toolbridge/test-suite/kit';

/**
 * The built command (`pnpm test` builds before jest runs): what `pnpm start`
 * and users run. The in-process CLI tests cover the flags; this proves the
 * published entry point starts, serves and stops.
 */
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** Start `toolbridge serve --port 0` on a fake machine; resolves once it printed its URL. */
async function serve(machine: FakeMachine) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--quiet'], { env: machine.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', () => reject(new Error('the CLI exited before printing its URL')));
  });
  return { child, exited, url: first.match(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/)?.[1] };
}

describe('node apps/bridge/dist/cli.js', () => {
  it('serve --port 0 prints its URL first, serves the tools, and exits 0 on SIGTERM', async () => {
    expect(existsSync(CLI)).toBe(true); // run `pnpm build` (pnpm test does) before jest
    const machine = await makeFakeMachine();
    try {
      const { child, exited, url } = await serve(machine);
      expect(url).toBeDefined();
      const health = (await (await fetch(`${url}/health`)).json()) as { status: string; tools: Array<{ toolId: string; status: string }> };
      expect(health.status).toBe('ok');
      expect(health.tools.map((t) => [t.toolId, t.status])).toEqual([
        ['codex', 'healthy'],
        ['claude-code', 'healthy'],
        ['opencode', 'healthy'],
        ['gemini', 'healthy'],
        ['copilot', 'healthy'],
        ['pi', 'healthy'],
        ['qwen-code', 'healthy'],
        ['ollama', 'healthy'],
      ]);
      const chat = await fetch(`${url}/chat/codex`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Say hello' }] }),
      });
      expect(await chat.json()).toMatchObject({ toolId: 'codex', result: { message: { role: 'assistant', content: 'Hello from mock' } } });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await machine.cleanup();
    }
  }, 60_000);

  it('SIGTERM with chats in flight: they are answered 503, the command exits 0, no tool process or helper is left', async () => {
    const machine = await makeFakeMachine();
    try {
      for (const bin of ['codex', 'claude', 'opencode'] as const) await machine.setMode(bin, 'hang-tree');
      const { child, exited, url } = await serve(machine);
      const chats = Array.from({ length: 9 }, (_, i) =>
        fetch(`${url}/chat/${['codex', 'claude-code', 'opencode'][i % 3]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'never answered' }] }),
        }).then(
          (r) => r.status,
          () => 'cut',
        ),
      );
      // The bridge itself, then each chat's tool and its helper.
      await waitFor(() => machine.livePids().length >= 1 + 9 * 2, 15_000, 'the tools and their helpers to start');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(await Promise.all(chats)).toEqual(Array(9).fill(503));
      await waitFor(() => machine.livePids().length === 0, 5000, 'every tool process and helper to end');
    } finally {
      await machine.cleanup();
    }
  }, 60_000);
});
