// A warm-vs-cold benchmark (claude-warm, opencode-warm, pi-warm, qwen-warm, acp-warm run it whole;
// codex-warm, which also measures the library in-process, runs its steps): cold spawns, warm chats
// through the bridge, the warm process's memory, idle shutdown, what is left running.
import { processesWithEnv, waitFor } from '../../packages/test-suite/src/index.ts';
import { startBridge } from './bridge-process.mjs';
import { median, putConfig, timeChat, timeFirstDelta, warmLoad } from './chat-timing.mjs';

/** `runs` cold spawns (`direct()`, in ms) after one that warms the page cache and the CLI's first-run files, not a process. */
export async function coldRuns(direct, runs) {
  await direct();
  const cold = [];
  for (let i = 0; i < runs; i++) cold.push(await direct());
  return cold;
}

/**
 * Warm chats through the bridge: the first must be answered warm (it finds the process `serve`
 * started, or starts one), `settle` more are not timed, then `runs` timed chats (ms) and the first
 * deltas of `deltaRuns` streamed ones.
 */
export async function warmRuns({ chat, firstDelta, runs, deltaRuns = runs, settle = 1 }) {
  const first = await chat();
  if (first.transport !== 'warm')
    throw new Error(`expected the warm transport, got ${first.transport}${first.why ? ` (${first.why})` : ''}`);
  for (let i = 0; i < settle; i++) await chat();
  const warm = [];
  for (let i = 0; i < runs; i++) warm.push((await chat()).ms);
  const deltas = [];
  for (let i = 0; i < deltaRuns; i++) deltas.push(await firstDelta());
  return { first, warm, deltas };
}

/**
 * Idle shutdown: a short idle time (`config` set with it), one chat, then wait until health counts
 * no warm process. `measure()` (what the busy process holds) runs after that chat; `after` is
 * health's warm load once it is idle.
 */
export async function idleShutdown(url, toolId, { chat, idleMs = 1000, config = {}, refresh = false, measure }) {
  await putConfig(url, { warmIdleMs: idleMs, ...config });
  await chat();
  const measured = await measure?.();
  await waitFor(async () => (await warmLoad(url, toolId, { refresh })).warm.processes === 0, 15_000, 'idle shutdown');
  return { measured, after: (await warmLoad(url, toolId, { refresh })).warm };
}

/**
 * How many of the tool's processes still run once they had 10 s to exit: those whose environment
 * has `envEntry` (`HOME=…`), but the bridge, which has that environment too.
 */
export async function processesLeft(envEntry, bridgePid) {
  const left = () => processesWithEnv(envEntry).filter((pid) => pid !== bridgePid);
  await waitFor(() => left().length === 0, 10_000, 'the warm processes to exit');
  return left().length;
}

const MiB = 2 ** 20;

/**
 * The rows every warm-vs-cold benchmark reports, named `<tool>: …`: the cold spawn and the warm
 * chat (`[what ran, times]`), their ratio (target: a warm chat in 35 % of a cold spawn's time),
 * the first delta, `extra` rows, the first chat (`[name, ms]`), the warm process's memory
 * (`[name, bytes]`), what idle shutdown gave back, and the processes it left.
 */
function warmResults(
  tool,
  { cold: [coldRun, cold], warm: [warmRun, warm], deltas, extra = [], first, rss: [rssName, rss], givenBack, left },
) {
  const ms = (name, value) => ({ name: `${tool}: ${name}`, value, unit: 'ms', digits: 0 });
  return [
    ms(`cold ${coldRun} spawned directly (median of ${cold.length})`, median(cold)),
    ms(`chat through the bridge, ${warmRun} (median of ${warm.length})`, median(warm)),
    {
      name: `${tool}: warm chat / direct cold spawn`,
      value: median(warm) / median(cold),
      unit: '×',
      digits: 2,
      target: 0.35,
      better: 'lower',
    },
    ms(`first streamed delta through the bridge, warm (median of ${deltas.length})`, median(deltas)),
    ...extra,
    ...(first ? [ms(first[0], first[1])] : []),
    { name: `${tool}: ${rssName}`, value: rss / MiB, unit: 'MiB', digits: 0 },
    { name: `${tool}: memory given back by idle shutdown`, value: givenBack / MiB, unit: 'MiB', digits: 0 },
    { name: `${tool}: processes left after idle shutdown`, value: left, unit: '', digits: 0, target: 0, better: 'lower' },
  ];
}

/**
 * One tool's warm-vs-cold benchmark, on `serve` started with `env` (with `warmUp`, as `serve
 * --warm-up <tool>`, as a user who wants it warm at once would: a tool not used lately starts on its
 * first chat): `runs` cold spawns (`direct()`); the warm chats, each with `fields` (`warmRuns`);
 * `extra(chat)`'s rows; the warm process's memory, idle shutdown (`idle`: `ms`, more `config`,
 * health `refresh`; what it gives back counted from the load before it, or with `fromChat` from the
 * load after its chat) and the processes left under `home.dir`. `mock` and `home` are closed and
 * removed however it ends. The rows are named by `names`.
 */
export async function warmVsCold(spec) {
  const { toolId, label, env, warmUp = false, mock, home, direct, fields, runs, deltaRuns, settle, idle = {}, extra, names } = spec;
  const bridge = await startBridge(env, warmUp ? ['--warm-up', toolId] : []);
  try {
    const cold = await coldRuns(direct, runs);
    const chat = (more) => timeChat(bridge.url, toolId, { ...fields, ...more });
    const firstDelta = () => timeFirstDelta(bridge.url, toolId, fields);
    const { first, warm, deltas } = await warmRuns({ chat, firstDelta, runs, deltaRuns, settle });
    const extraRows = extra ? await extra(chat) : [];

    const load = async () => (await warmLoad(bridge.url, toolId, { refresh: idle.refresh })).warm;
    const busy = await load();
    const { measured, after } = await idleShutdown(bridge.url, toolId, {
      chat,
      idleMs: idle.ms,
      config: idle.config,
      refresh: idle.refresh,
      measure: idle.fromChat ? load : undefined,
    });
    const left = await processesLeft(`HOME=${home.dir}`, bridge.pid);
    return warmResults(label, {
      cold: [names.cold, cold],
      warm: [names.warm, warm],
      deltas,
      extra: extraRows,
      // `serve` starts the warm process in the background as it starts (prewarm): the first chat finds it up or starting.
      first: warmUp ? ['first chat after `serve` started (warm-up began at start)', first.ms] : names.first && [names.first, first.ms],
      rss: [names.rss, busy.rssBytes],
      givenBack: (measured ?? busy).rssBytes - after.rssBytes,
      left,
    });
  } finally {
    await bridge.stop();
    await mock.close();
    await home.cleanup();
  }
}
