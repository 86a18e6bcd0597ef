/**
 * The spawner's own program (run as `node -e`; see spawner.ts). Besides spawning, it watches the
 * process groups of long-lived tools it is told of (`{ watch: pgid }`, `{ unwatch: pgid }`): when
 * this process goes away, even by SIGKILL (its IPC channel closes), it ends them, SIGTERM then
 * SIGKILL after 2 s. One helper thus guards every warm server, instead of a ~40 MiB Node guard each.
 */
export const SPAWNER_SOURCE = `
const { spawn } = require('child_process');
const live = new Map();
const watched = new Set();
const send = (m, h) => { try { process.send(m, h); } catch {} };
process.on('message', (m) => {
  if (m.watch) return void watched.add(m.watch);
  if (m.unwatch) return void watched.delete(m.unwatch);
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  } catch (e) {
    return send({ id: m.id, error: { code: e.code, message: e.message } });
  }
  child.on('error', (e) => send({ id: m.id, error: { code: e.code, message: e.message } }));
  if (child.pid === undefined) return;
  // stdout's pipe goes over as a raw handle, taken from its socket at once: left there, a quick
  // tool's output (even its EOF) would be read here before the handle left, and lost.
  const out = child.stdout._handle;
  if (out.reading) { out.reading = false; out.readStop(); }
  out.onread = () => {};
  child.stdout._handle = null;
  live.set(m.id, child.pid);
  send({ id: m.id, pid: child.pid }, out);
  // The input is known up front and stderr is small: both travel as messages, so a spawn costs one
  // handle (each waits for the previous one's ack).
  child.stdin.on('error', () => {});
  child.stdin.end(m.stdin ?? '');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => send({ id: m.id, stderr: text }));
  child.stderr.on('close', () => send({ id: m.id, stderrEnd: true }));
  child.on('exit', (code, signal) => { live.delete(m.id); send({ id: m.id, exit: [code, signal] }); });
});
const signal = (pids, sig) => { for (const pid of pids) { try { process.kill(-pid, sig); } catch {} } };
process.on('disconnect', () => {
  signal([...live.values(), ...watched], 'SIGTERM');
  if (watched.size === 0) process.exit(0);
  // A long-lived tool (a server) gets the grace a kill gets anywhere else, then SIGKILL.
  setTimeout(() => { signal(watched, 'SIGKILL'); process.exit(0); }, 2000);
});
process.send({ ready: true });
`;
