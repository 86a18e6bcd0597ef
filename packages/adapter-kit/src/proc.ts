import { readdirSync, readFileSync } from 'node:fs';

/**
 * The one reader of `/proc` (Linux): process states, parents, groups, memory and environments.
 * Everything here is synchronous on purpose: a pass over /proc with sync reads costs less than a
 * third of the same reads through promises (0.7 ms against 1.8 ms for 64 processes, measured), and
 * the exit hook, which has no event loop left, needs it. Off Linux each function answers "nothing
 * seen" (an empty list, 0, undefined), except `processRunning`, which asks the kernel.
 */

/** What `/proc/<pid>/stat` says of a process. */
export interface ProcStat {
  pid: number;
  /** `R`, `S`, `D`, `T`, `Z` (zombie: exited, not yet reaped), ... */
  state: string;
  ppid: number;
  pgrp: number;
}

const linux = process.platform === 'linux';

/** Pids of every process in /proc, this one included (empty off Linux). */
export function procPids(): number[] {
  if (!linux) return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const n of names) {
    const first = n.charCodeAt(0);
    if (first >= 48 && first <= 57) pids.push(Number(n));
  }
  return pids;
}

/** A process's state, parent and group; undefined when it is gone (or off Linux). */
export function procStat(pid: number): ProcStat | undefined {
  if (!linux) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // Fields after the command (which may hold spaces and parentheses): state, ppid, pgrp, ...
  const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, state: state ?? '', ppid: Number(ppid), pgrp: Number(pgrp) };
}

/** A process's environment as written (NUL-terminated entries); undefined when gone or not ours to read. */
function procEnviron(pid: number): Buffer | undefined {
  if (!linux) return undefined;
  try {
    return readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
}

/**
 * Pids of processes (not this one, among `pids`, by default all) whose environment holds one of
 * `entries` (`NAME=value`) exactly. A zombie's environment reads empty, so zombies are never found.
 */
export function pidsWithEnv(entries: readonly string[], pids: readonly number[] = procPids()): number[] {
  const needles = entries.map((e) => Buffer.from(`${e}\0`, 'latin1'));
  if (needles.length === 0) return [];
  const found: number[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const environ = procEnviron(pid); // undefined: exited meanwhile, or another user's process
    if (environ && needles.some((needle) => startsEntry(environ, needle))) found.push(pid);
  }
  return found;
}

/** Entries are NUL-terminated; a match must start an entry, not end a longer name. */
function startsEntry(environ: Buffer, needle: Buffer): boolean {
  for (let i = environ.indexOf(needle); i >= 0; i = environ.indexOf(needle, i + 1)) {
    if (i === 0 || environ[i - 1] === 0) return true;
  }
  return false;
}

/**
 * Whether a process still runs. A zombie counts as gone: it has exited and only waits to be
 * reaped (a killed child stays one until Node has handled its exit, which a caller that checks
 * right after the kill has not seen yet).
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!linux) return true;
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/** Live (not zombie) descendants of a process, depth first; empty off Linux. */
export function descendants(root: number | undefined): number[] {
  if (root === undefined) return [];
  const children = new Map<number, number[]>();
  for (const pid of procPids()) {
    const stat = procStat(pid);
    if (!stat || stat.state === 'Z') continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(pid);
    children.set(stat.ppid, list);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Resident memory of one process in bytes (VmRSS); 0 when gone or off Linux. */
export function rssBytes(pid: number): number {
  if (!linux) return 0;
  try {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return rss ? Number(rss[1]) * 1024 : 0;
  } catch {
    return 0; // exited meanwhile
  }
}

/**
 * Resident memory of a process group (a warm tool and its helpers): the sum of VmRSS over the
 * processes whose group is `pgid`. Linux only; 0 elsewhere. Read on health checks only.
 */
export function groupRssBytes(pgid: number): number {
  let total = 0;
  for (const pid of procPids()) if (procStat(pid)?.pgrp === pgid) total += rssBytes(pid);
  return total;
}

/**
 * Pids in /proc handed out from `fromPid` on, for a caller that knows the counter has not gone
 * all the way round since. Linux hands out pids in increasing order up to `pid_max` (32768 here),
 * then wraps: those are the pids from `fromPid` up to the last one handed out, or, when the counter
 * has wrapped since, from `fromPid` up to the top and from the bottom up to the last one. The last
 * pid is read after the listing, so every pid listed was handed out by then. Processes older than
 * the last wrap sit anywhere in the range (on a busy shared machine, most of them: measured, 27 of
 * 123 above the counter, ~0.4-0.8 ms per environment read under load), hence both bounds.
 */
export function pidsSince(fromPid: number): number[] {
  const pids = procPids();
  const last = lastPid();
  if (last === undefined) return pids;
  return last >= fromPid ? pids.filter((p) => p >= fromPid && p <= last) : pids.filter((p) => p >= fromPid || p <= last);
}

/** The last pid the kernel handed out (`/proc/loadavg` ends with it); undefined when unknown. */
export function lastPid(): number | undefined {
  if (!linux) return undefined;
  try {
    const last = Number(readFileSync('/proc/loadavg', 'latin1').trim().split(' ').pop());
    return Number.isInteger(last) ? last : undefined;
  } catch {
    return undefined;
  }
}
