// The bridge's own overhead per request (security checks, validation, routing,
// JSON), with an in-memory tool so only the bridge is measured.
import { startServer } from '../apps/bridge/dist/index.js';
import { createToolbridge } from '../packages/toolbridge/dist/index.js';
import { AGENT_CAPABILITIES } from '../packages/core/dist/index.js';

const echo = {
  specificationVersion: 'v1',
  id: 'echo',
  name: 'Echo',
  type: 'agent',
  capabilities: AGENT_CAPABILITIES,
  configSchema: {},
  async detect() {
    return { available: true, version: '1', models: ['m'], defaultModel: 'm' };
  },
  async chat(req) {
    return {
      message: { role: 'assistant', content: req.messages.at(-1).content },
      usage: { input_tokens: 1, output_tokens: 1 },
      metadata: {},
    };
  },
  async *stream(req) {
    yield { type: 'result', result: await echo.chat(req) };
  },
};

async function measure(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], p99: times[Math.floor(n * 0.99)] };
}

export default async function () {
  const toolbridge = createToolbridge({ adapters: [echo], env: {} });
  const bridge = await startServer({ port: 0, toolbridge, logger: false });
  try {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(2000) }] });
    const chat = () =>
      fetch(`${bridge.url}/chat/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.json());
    const discover = () => fetch(`${bridge.url}/discover`).then((r) => r.json());
    await measure(200, chat); // warm up
    const c = await measure(2000, chat);
    const d = await measure(2000, discover);
    return [
      { name: 'POST /chat/:toolId overhead (p50)', value: c.p50, unit: 'ms', target: 3, better: 'lower', digits: 2 },
      { name: 'POST /chat/:toolId overhead (p99)', value: c.p99, unit: 'ms', target: 15, better: 'lower', digits: 2 },
      { name: 'GET /discover, cached (p50)', value: d.p50, unit: 'ms', target: 2, better: 'lower', digits: 2 },
    ];
  } finally {
    await bridge.close();
  }
}
