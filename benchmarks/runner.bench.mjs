// The subprocess runner must stream JSONL fast and without buffering whole outputs.
import { runProcess, spawnProcess } from '../packages/adapter-kit/dist/index.js';

export default async function () {
  const results = [];
  // Spawn overhead: a trivial process, median of 20.
  const times = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await runProcess({ command: process.execPath, args: ['-e', '0'] });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  results.push({ name: 'spawn + exit of node -e 0 (median)', value: times[10], unit: 'ms', target: 150, better: 'lower' });

  // Line throughput and memory: 400k JSONL lines (~40 MB) streamed through the iterator.
  const lines = 400_000;
  const script = `const l=JSON.stringify({type:'item.updated',item:{id:'x',type:'agent_message',text:'y'.repeat(50)}})+'\\n';let i=0;(function w(){while(i<${lines}){i++;if(!process.stdout.write(l))return process.stdout.once('drain',w)}})()`;
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t = performance.now();
  let n = 0;
  for await (const line of spawnProcess({ command: process.execPath, args: ['-e', script], maxOutputBytes: 1 << 30 })) {
    if (line.length > 0) n++;
  }
  const secs = (performance.now() - t) / 1000;
  clearInterval(sampler);
  if (n !== lines) throw new Error(`expected ${lines} lines, got ${n}`);
  results.push({ name: 'JSONL lines streamed per second', value: n / secs, unit: 'lines/s', target: 200_000, better: 'higher', digits: 0 });
  results.push({ name: 'RSS growth while streaming 40 MB', value: (peak - rssBefore) / 2 ** 20, unit: 'MiB', target: 64, better: 'lower' });
  return results;
}
