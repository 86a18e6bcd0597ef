// The bridge under load, as users run it: `toolbridge serve` in its own process
// over a fake machine (the test kit's fake codex/claude/opencode replaying real
// recorded output, and an in-test Ollama), driven from this process.
//  1. chat latency through the bridge vs spawning the same fake CLI directly;
//  2. warm GET /discover and GET /health: latency and throughput (autocannon);
//  3. 100 concurrent chats: answered, refused busy with Retry-After, errors,
//     peak RSS of the bridge, processes left;
//  4. time to the first streamed answer byte through the bridge vs directly (Claude Code).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { makeFakeMachine } from '../packages/toolbridge/src/testing/fake-machine.ts';
import { startBridge } from './lib/bridge-process.mjs';
import { median } from './lib/chat-timing.mjs';

const PROMPT = 'Say hello';

const rssKiB = (pid, field = 'VmRSS') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** Spawn the fake CLI as the adapter would (prompt on stdin); resolve when it has exited, with when `marker` first showed on stdout. */
function direct(bin, args, env, marker) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let seen;
    let out = '';
    child.stdout.on('data', (chunk) => {
      if (seen !== undefined) return;
      out += chunk;
      if (out.includes(marker)) seen = performance.now() - started;
    });
    child.once('error', reject);
    child.once('close', () => resolve({ totalMs: performance.now() - started, markerMs: seen }));
    child.stdin.end(PROMPT);
  });
}

// A lean keep-alive client, so the client's own cost stays out of the bridge's numbers.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One request; `onData(text, elapsedMs)` sees the body as it arrives. */
function request(url, { method = 'GET', body, onData } = {}) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
          onData?.(text, performance.now() - started);
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text, ms: performance.now() - started }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const postChat = (url, tool, body, onData) =>
  request(`${url}/chat/${tool}`, {
    method: 'POST',
    body: JSON.stringify({ messages: [{ role: 'user', content: PROMPT }], ...body }),
    onData,
  });

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** The medians of the same thing done directly and through the bridge, and the bridge's overhead as their ratio (target: under 10 %). */
function overhead([directName, directMs], [bridgeName, bridgeMs], ratioName) {
  return [
    { name: directName, value: median(directMs), unit: 'ms', digits: 1 },
    { name: bridgeName, value: median(bridgeMs), unit: 'ms', digits: 1 },
    { name: ratioName, value: median(bridgeMs) / median(directMs), unit: '×', target: 1.1, better: 'lower', digits: 3 },
  ];
}

/** Time until the SSE response carries its first `delta` event. */
async function bridgeFirstDelta(url, tool) {
  let first;
  const res = await postChat(url, tool, { stream: true }, (text, ms) => {
    if (first === undefined && text.includes('event: delta')) first = ms;
  });
  if (first === undefined) throw new Error(`no delta in: ${res.text.slice(0, 300)}`);
  return first;
}

async function cannon(url) {
  const result = await autocannon({ url, connections: 10, duration: 5 });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

/** `n` chats at once; sorts the answers into answered, refused busy (with Retry-After) and errors. */
async function burst(url, pid, n, toolOf) {
  let peakKiB = rssKiB(pid);
  const sampler = setInterval(() => (peakKiB = Math.max(peakKiB, rssKiB(pid))), 10);
  const outcomes = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await postChat(url, toolOf(i), {});
      const body = JSON.parse(res.text);
      if (res.status === 200 && body.result?.message?.content) return 'answered';
      if (res.status === 503 && /busy/.test(body.error?.message) && Number(res.headers['retry-after']) >= 1) return 'refused';
      return 'error';
    }),
  );
  clearInterval(sampler);
  const count = (what) => outcomes.filter((o) => o === what).length;
  return { answered: count('answered'), refused: count('refused'), errors: count('error'), peakMiB: peakKiB / 1024 };
}

export default async function () {
  const machine = await makeFakeMachine();
  const env = { ...machine.env, TOOLBRIDGE_OLLAMA_MODEL: 'llama3.2:1b' };
  const codexBin = path.join(env.PATH.split(path.delimiter)[0], 'codex');
  const execArgs = ['exec', '--json', '-'];
  const bridge = await startBridge(env);
  const results = [];
  try {
    // 1. Chat latency, sequential, after a warm-up of each path.
    for (let i = 0; i < 3; i++) {
      await direct(codexBin, execArgs, env, 'turn.completed');
      await postChat(bridge.url, 'codex', {});
    }
    const directMs = [];
    const bridgeMs = [];
    for (let i = 0; i < 30; i++) {
      directMs.push((await direct(codexBin, execArgs, env, 'turn.completed')).totalMs);
      const res = await postChat(bridge.url, 'codex', {});
      if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${res.text}`);
      bridgeMs.push(res.ms);
    }
    results.push(
      ...overhead(
        ['codex chat, fake CLI spawned directly (median)', directMs],
        ['codex chat through POST /chat/codex (median)', bridgeMs],
        'chat latency ratio, bridge / direct',
      ),
    );

    // 2. Warm discovery and health (cached; the first call fills the caches): latency one request
    // at a time, then throughput with autocannon.
    for (const route of ['/discover', '/health']) {
      const times = [];
      for (let i = 0; i < 2200; i++) {
        const res = await request(bridge.url + route);
        if (res.status !== 200) throw new Error(`${route} answered ${res.status}`);
        if (i >= 200) times.push(res.ms);
      }
      const r = await cannon(bridge.url + route);
      results.push({
        name: `GET ${route} warm latency (p50)`,
        value: percentile(times, 0.5),
        unit: 'ms',
        target: 2,
        better: 'lower',
        digits: 2,
      });
      results.push({ name: `GET ${route} warm latency (p99)`, value: percentile(times, 0.99), unit: 'ms', digits: 2 });
      results.push({
        name: `GET ${route} throughput (autocannon, 10 connections)`,
        value: r.requests.average,
        unit: 'req/s',
        target: 3000,
        better: 'higher',
        digits: 0,
      });
    }

    // 3. 100 concurrent chats: all to Codex (4 run, 32 wait, the rest are refused), then spread over the four tools.
    const rssBefore = rssKiB(bridge.pid) / 1024;
    const oneTool = await burst(bridge.url, bridge.pid, 100, () => 'codex');
    const tools = ['codex', 'claude-code', 'opencode', 'ollama'];
    const spread = await burst(bridge.url, bridge.pid, 100, (i) => tools[i % tools.length]);
    await new Promise((r) => setTimeout(r, 500));
    const left = machine.livePids().filter((pid) => pid !== bridge.pid).length;
    results.push({ name: '100 concurrent chats to codex: answered', value: oneTool.answered, unit: 'chats', digits: 0 });
    results.push({
      name: '100 concurrent chats to codex: refused busy with Retry-After',
      value: oneTool.refused,
      unit: 'chats',
      digits: 0,
    });
    results.push({
      name: '100 concurrent chats to codex: errors',
      value: oneTool.errors,
      unit: 'chats',
      target: 0,
      better: 'lower',
      digits: 0,
    });
    results.push({
      name: '100 concurrent chats over 4 tools: answered',
      value: spread.answered,
      unit: 'chats',
      target: 100,
      better: 'higher',
      digits: 0,
    });
    results.push({
      name: '100 concurrent chats over 4 tools: errors',
      value: spread.errors,
      unit: 'chats',
      target: 0,
      better: 'lower',
      digits: 0,
    });
    results.push({ name: 'bridge RSS before the bursts', value: rssBefore, unit: 'MiB', digits: 0 });
    results.push({
      name: 'bridge peak RSS during the bursts',
      value: Math.max(oneTool.peakMiB, spread.peakMiB),
      unit: 'MiB',
      target: 256,
      better: 'lower',
      digits: 0,
    });
    results.push({ name: 'tool processes left after the bursts', value: left, unit: 'processes', target: 0, better: 'lower', digits: 0 });

    // 4. First streamed byte. Claude Code streams its answer as it comes (Codex's answer is only known
    // to be the answer when its turn ends). The fake prints a line every 300 ms; the answer is the second.
    await machine.setMode('claude', 'slow');
    const claudeBin = path.join(path.dirname(codexBin), 'claude');
    const claudeArgs = ['-p', '--output-format', 'stream-json', '--verbose'];
    const directFirst = [];
    const bridgeFirst = [];
    for (let i = 0; i < 15; i++) {
      directFirst.push((await direct(claudeBin, claudeArgs, env, '"type":"assistant"')).markerMs);
      bridgeFirst.push(await bridgeFirstDelta(bridge.url, 'claude-code'));
    }
    results.push(
      ...overhead(
        ['first answer byte, fake claude directly (median)', directFirst],
        ['first streamed delta through the bridge (median)', bridgeFirst],
        'first-byte ratio, bridge / direct',
      ),
    );
  } finally {
    await bridge.stop();
    await machine.cleanup();
  }
  return results;
}
