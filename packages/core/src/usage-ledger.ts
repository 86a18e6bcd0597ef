import path from 'node:path';
import { InvalidRequestError } from './errors.js';
import { JsonlLog } from './jsonl-log.js';
import type { ChatResult, UsageLimits } from './types.js';
import { usageTotals } from './usage.js';
import {
  USAGE_GROUPINGS,
  type UsageGroup,
  type UsageGrouping,
  type UsageRecord,
  type UsageSummary,
  type WindowSnapshot,
} from './wire/usage.js';

/** Where and how much the ledger keeps. */
export interface UsageLedgerOptions {
  /** Its folder (default `<state dir>/usage`, beside `sessions`). */
  dir: string;
  /** Bound on each of its two files (default 8 MiB: some 30 000 chats); past it the oldest go. */
  maxBytes?: number;
}

export const DEFAULT_LEDGER_MAX_BYTES = 8 * 1024 * 1024;
const DAY_MS = 86_400_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isUsageRecord = (v: unknown): v is UsageRecord =>
  isObject(v) && typeof v.at === 'string' && typeof v.toolId === 'string' && (v.outcome === 'succeeded' || v.outcome === 'failed');
const isSnapshot = (v: unknown): v is WindowSnapshot =>
  isObject(v) && typeof v.at === 'string' && typeof v.toolId === 'string' && isObject(v.windows);

/** A period and a grouping, checked. */
export interface UsageQuery {
  since: Date;
  until: Date;
  groupBy: UsageGrouping;
}

/** An ISO 8601 date or time given as a query value; undefined when absent, InvalidRequestError when not a date. */
export function dateParam(value: unknown, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const t = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(t)) throw new InvalidRequestError(`${name} must be an ISO 8601 date or time (e.g. 2026-01-31T00:00:00Z)`);
  return new Date(t);
}

/** `since`/`until`/`groupBy` as given (query strings or library values): the last 7 days by tool unless said. */
export function usageQuery(input: { since?: unknown; until?: unknown; groupBy?: unknown } = {}, now = Date.now()): UsageQuery {
  const until = dateParam(input.until, 'until') ?? new Date(now);
  const since = dateParam(input.since, 'since') ?? new Date(until.getTime() - 7 * DAY_MS);
  if (since > until) throw new InvalidRequestError('since must not be after until');
  const groupBy = input.groupBy ?? 'tool';
  if (!USAGE_GROUPINGS.includes(groupBy as UsageGrouping))
    throw new InvalidRequestError(`groupBy must be one of ${USAGE_GROUPINGS.join(', ')}`);
  return { since, until, groupBy: groupBy as UsageGrouping };
}

/** What a finished chat is recorded as: counts and facts only, never the prompt or the answer. */
export function usageRecordOf(
  toolId: string,
  outcome: { result: ChatResult } | { errorCode: string },
  durationMs: number,
  facts: { model?: string; transport?: string },
  at = new Date(),
): UsageRecord {
  const record: UsageRecord = {
    at: at.toISOString(),
    toolId,
    outcome: 'result' in outcome ? 'succeeded' : 'failed',
    durationMs: Math.round(durationMs),
  };
  if ('errorCode' in outcome) record.errorCode = outcome.errorCode;
  const result = 'result' in outcome ? outcome.result : undefined;
  const model = result?.model ?? facts.model;
  if (model) record.model = model;
  const transport = typeof result?.metadata.transport === 'string' ? result.metadata.transport : facts.transport;
  if (transport) record.transport = transport;
  if (result) {
    const t = usageTotals(result.usage);
    if (t.input !== undefined) record.inputTokens = t.input;
    if (t.output !== undefined) record.outputTokens = t.output;
    if (t.cacheRead !== undefined) record.cachedInputTokens = t.cacheRead;
    // Claude Code reports the turn's cost as totalCostUsd, OpenCode as costUsd (the sum of its messages').
    const cost = [result.metadata.costUsd, result.metadata.totalCostUsd].find((c) => typeof c === 'number' && Number.isFinite(c));
    if (typeof cost === 'number') record.costUsd = cost;
  }
  return record;
}

/** Chats in the period, grouped; groups in key order (days ascending). */
export function summarize(records: readonly UsageRecord[], query: UsageQuery): UsageSummary {
  // Records are stamped with toISOString(): as strings they sort as their times do (no Date.parse per record).
  const from = query.since.toISOString();
  const to = query.until.toISOString();
  const groups = new Map<string, UsageGroup>();
  for (const r of records) {
    if (!(r.at >= from && r.at <= to)) continue;
    const key = query.groupBy === 'tool' ? r.toolId : query.groupBy === 'day' ? r.at.slice(0, 10) : (r.model ?? 'unknown');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, chats: 0, succeeded: 0, failed: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }));
    g.chats++;
    if (r.outcome === 'succeeded') g.succeeded++;
    else g.failed++;
    g.inputTokens += r.inputTokens ?? 0;
    g.outputTokens += r.outputTokens ?? 0;
    g.cachedInputTokens += r.cachedInputTokens ?? 0;
    if (r.costUsd !== undefined) g.costUsd = Math.round(((g.costUsd ?? 0) + r.costUsd) * 1e6) / 1e6;
  }
  return {
    since: query.since.toISOString(),
    until: query.until.toISOString(),
    groupBy: query.groupBy,
    groups: [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}

/**
 * The usage ledger: every finished chat and every change of a tool's usage windows, kept in two
 * private append-only JSON-lines files (see `JsonlLog` for why that storage).
 */
export class UsageLedger {
  readonly dir: string;
  private readonly chats: JsonlLog<UsageRecord>;
  private readonly windows: JsonlLog<WindowSnapshot>;
  /** Writes under way, so `flush()` (tests, shutdown) can wait for them. */
  private pending = new Set<Promise<void>>();

  constructor(options: UsageLedgerOptions) {
    this.dir = options.dir;
    const maxBytes = options.maxBytes ?? DEFAULT_LEDGER_MAX_BYTES;
    this.chats = new JsonlLog({ file: path.join(options.dir, 'chats.jsonl'), maxBytes, accept: isUsageRecord });
    this.windows = new JsonlLog({ file: path.join(options.dir, 'windows.jsonl'), maxBytes, accept: isSnapshot });
  }

  private track(write: Promise<void>): void {
    const p = write.catch(() => undefined); // a full disk must not fail a chat; the record is lost
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Record a finished chat (written in the background). */
  recordChat(record: UsageRecord): void {
    this.track(this.chats.append(record));
  }

  /** Record a tool's usage windows as observed at `takenAt` (called when they change). */
  recordWindows(toolId: string, limits: UsageLimits, takenAt: number): void {
    if (limits.status !== 'available' || !limits.windows) return;
    this.track(this.windows.append({ toolId, at: new Date(takenAt).toISOString(), windows: limits.windows }));
  }

  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** GET /usage. */
  async summary(query: UsageQuery): Promise<UsageSummary> {
    return summarize(await this.chats.all(), query);
  }

  /** The chats recorded in a period, oldest first. */
  async records(since: Date, until = new Date()): Promise<UsageRecord[]> {
    return (await this.chats.all()).filter((r) => {
      const t = Date.parse(r.at);
      return t >= since.getTime() && t <= until.getTime();
    });
  }

  /** GET /usage/windows: snapshots at or after `since`, of one tool or all, oldest first. */
  async windowSnapshots(filter: { toolId?: string; since?: Date } = {}): Promise<WindowSnapshot[]> {
    const since = filter.since?.getTime() ?? -Infinity;
    return (await this.windows.all()).filter((s) => (!filter.toolId || s.toolId === filter.toolId) && Date.parse(s.at) >= since);
  }
}
