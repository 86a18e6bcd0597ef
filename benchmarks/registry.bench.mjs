// Discovery is cached and single-flight: repeated and concurrent calls must be nearly free.
import { AGENT_CAPABILITIES } from '../packages/core/dist/index.js';
import { createRegistry } from '../packages/core/dist/runtime.js';

export default async function () {
  let probes = 0;
  const adapters = ['a', 'b', 'c', 'd'].map((id) => ({
    specificationVersion: 'v1',
    id,
    name: id,
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    configSchema: {},
    async detect() {
      probes++;
      await new Promise((r) => setTimeout(r, 50));
      return { available: true, version: '1', models: [] };
    },
    async chat() {
      throw new Error('unused');
    },
    async *stream() {},
  }));
  const registry = createRegistry({ adapters, env: {}, discoveryTtlMs: 60_000 });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 1000 }, () => registry.discover()));
  const cold = performance.now() - t0;
  const t1 = performance.now();
  const n = 100_000;
  for (let i = 0; i < n; i++) await registry.discover();
  const perCall = ((performance.now() - t1) * 1000) / n;
  return [
    {
      name: '1000 concurrent cold discover() calls (4 tools x 50 ms probes, parallel)',
      value: cold,
      unit: 'ms',
      target: 120,
      better: 'lower',
    },
    { name: 'probes run for those 1000 calls', value: probes, unit: 'probes', target: 4, better: 'lower', digits: 0 },
    { name: 'cached discover() call', value: perCall, unit: 'µs', target: 20, better: 'lower', digits: 2 },
  ];
}
