// What the warm-transport benchmarks share: a cold spawn of a CLI, timed as a caller without
// Toolbridge would run it; a chat and its first streamed delta through the bridge, timed; the
// tool's load from health; the median.
import { spawn } from 'node:child_process';

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const PROMPT = 'Say hello';

/** Spawn `command args` with the prompt on stdin; the milliseconds until it exits, once `answered(stdout)` says it answered. */
export function timeSpawn(command, args, { env, cwd, detached = false, answered }) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'ignore'], detached });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 && answered(out) ? resolve(performance.now() - started) : reject(new Error(`${command} ${args[0]} exited ${code}`)),
    );
    child.stdin.end(PROMPT);
  });
}

const json = { 'content-type': 'application/json' };
const chatBody = (fields) => JSON.stringify({ messages: [{ role: 'user', content: PROMPT }], ...fields });

/** One chat through the bridge: its time, the transport that answered, and why not warm (when the adapter says). */
export async function timeChat(url, toolId, fields) {
  const started = performance.now();
  const res = await fetch(`${url}/chat/${toolId}`, { method: 'POST', headers: json, body: chatBody(fields) });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`chat failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  const metadata = body.result?.metadata ?? {};
  return { ms: performance.now() - started, transport: metadata.transport, why: metadata.warmUnavailable };
}

/** Time to the first `delta` event of a streamed chat. */
export async function timeFirstDelta(url, toolId, fields) {
  const started = performance.now();
  const res = await fetch(`${url}/chat/${toolId}`, { method: 'POST', headers: json, body: chatBody({ stream: true, ...fields }) });
  const decoder = new TextDecoder();
  let text = '';
  let at;
  for await (const chunk of res.body) {
    text += decoder.decode(chunk, { stream: true });
    if (at === undefined && text.includes('event: delta')) at = performance.now() - started;
  }
  if (at === undefined) throw new Error('no delta event');
  return at;
}

/** The tool's `load` from `GET /health/:toolId` (`refresh` probes now instead of reading the cache). */
export async function warmLoad(url, toolId, { refresh = false } = {}) {
  return (await (await fetch(`${url}/health/${toolId}${refresh ? '?refresh=true' : ''}`)).json()).load;
}

/** `PUT /config` (replaces the whole process config, as the API does). */
export async function putConfig(url, config) {
  const res = await fetch(`${url}/config`, { method: 'PUT', headers: json, body: JSON.stringify(config) });
  if (res.status !== 200) throw new Error(`PUT /config failed: ${res.status} ${await res.text()}`);
}
