import { describe, expect, it } from '@jest/globals';
import { tmpdir } from 'node:os';
import { LineProcess, PendingRequests } from './line-process.js';
import { parseJsonLine } from './text.js';

type Json = Record<string, unknown>;

/** A line-protocol tool: answers `{id, ask}` with `{id, answer}` (after an event line), `{exit}` makes it exit. */
const ECHO = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.exit) { process.stderr.write('bye'); process.exit(m.exit); }
  console.log(JSON.stringify({ event: 'working on ' + m.ask }));
  console.log(JSON.stringify({ id: m.id, answer: m.ask.toUpperCase() }));
});`;

class Echo extends LineProcess<Json> {
  readonly pending = new PendingRequests<Json>();
  ends = 0;
  constructor() {
    super({ command: process.execPath, args: ['-e', ECHO], env: process.env, cwd: tmpdir() }, 'echo', 500);
  }
  protected onLine(line: string): void {
    const json = parseJsonLine(line);
    if (json && typeof json.id === 'string' && this.pending.settle(json.id, json)) return;
    if (json) this.deliver(json);
  }
  protected onEnd(): void {
    this.ends++;
    this.pending.failAll(new Error(`ended: ${this.exitInfo.stderrTail}`));
  }
  ask(ask: string, timeoutMs?: number): Promise<Json> {
    return this.pending.request((id) => this.write(`${JSON.stringify({ id, ask })}\n`), { ...(timeoutMs ? { timeoutMs } : {}) });
  }
}

describe('LineProcess', () => {
  it('answers requests by id, queues the other lines for next(), and closes the process', async () => {
    const p = new Echo();
    const signal = AbortSignal.timeout(20_000);
    expect(await p.ask('one')).toEqual({ id: 'tb_1', answer: 'ONE' });
    expect(await p.ask('two')).toEqual({ id: 'tb_2', answer: 'TWO' });
    expect(await p.next(signal)).toEqual({ event: 'working on one' });
    expect(p.alive).toBe(true);
    expect(typeof p.pid).toBe('number');
    await p.close();
    expect([p.alive, p.ends]).toEqual([false, 1]);
    // The queued event is still there; then nothing more.
    expect(await p.next(signal)).toEqual({ event: 'working on two' });
    expect(await p.next(signal)).toBeUndefined();
  });

  it('fails what waits on it when the process exits, with how it ended, and tells its exit listeners', async () => {
    const p = new Echo();
    const waiting = p.pending.request(async () => undefined);
    let exits = 0;
    p.onExit(() => exits++);
    await p.write(`${JSON.stringify({ exit: 3 })}\n`);
    await expect(waiting).rejects.toThrow('ended: bye');
    await new Promise((r) => setTimeout(r, 10));
    expect(exits).toBe(1);
    expect(await p.next(AbortSignal.timeout(20_000))).toBeUndefined();
    expect(p.exitInfo.exitCode).toBe(3);
    await p.close();
  });
});

describe('PendingRequests', () => {
  it('gives up after its time (late error), an answer coming later is dropped; an abort rejects with its reason', async () => {
    const pending = new PendingRequests<string>();
    let sent = '';
    await expect(
      pending.request(
        async (id) => {
          sent = id;
        },
        { timeoutMs: 20, late: () => new Error('too late') },
      ),
    ).rejects.toThrow('too late');
    expect(pending.settle(sent, 'answer')).toBe(false);
    const controller = new AbortController();
    const asked = pending.request(async () => undefined, { signal: controller.signal });
    controller.abort(new Error('cancelled'));
    await expect(asked).rejects.toThrow('cancelled');
  });
});
