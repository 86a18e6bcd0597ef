import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { SessionBusyError, SessionNotFoundError } from '../errors.js';
import { privateDir } from '../files.js';
import { NewSessionFiles } from './new-files.js';
import type { SessionDetail, SessionSummary, TranscriptMessage } from '../types.js';
import {
  borrowed,
  ID_RE,
  makeWorkDir,
  readRecord,
  readTranscript,
  RECORD,
  removeOrphan,
  removeSessionFiles,
  TRANSCRIPT,
  writeNewSession,
  writeNextTurn,
  type SessionRecord,
} from './disk.js';

export type { SessionRecord } from './disk.js';

export interface SessionStoreOptions {
  /** Where sessions live: one folder each (record, transcript, private working directory). */
  dir: string;
  /** Most sessions kept; the least recently used go first (default 1000). */
  maxSessions?: number;
  /** Sessions unused for longer are deleted (default 30 days). */
  maxAgeMs?: number;
}

interface Entry {
  record: SessionRecord;
}

export function newSessionId(): string {
  return `tbs_${randomBytes(12).toString('base64url')}`;
}

/**
 * Sessions on disk, files 0600 in folders 0700, every write atomic or made to count by a whole record (see `commit`). A record is written only when
 * a turn has finished, so a process killed mid-turn loses at most that turn. The in-memory index
 * is loaded on first use; another process sharing the folder is seen on the next miss.
 */
export class SessionStore {
  readonly dir: string;
  private readonly maxSessions: number;
  private readonly maxAgeMs: number;
  private index?: Promise<Map<string, Entry>>;
  private readonly busy = new Set<string>();
  /** The files of new sessions whose first turn runs (see `prepareNew`). */
  private readonly newFiles = new Map<string, NewSessionFiles>();

  constructor(options: SessionStoreOptions) {
    this.dir = options.dir;
    this.maxSessions = options.maxSessions ?? 1000;
    this.maxAgeMs = options.maxAgeMs ?? 30 * 24 * 3600_000;
  }

  folderOf(id: string): string {
    if (!ID_RE.test(id)) throw new SessionNotFoundError(id);
    return path.join(this.dir, id);
  }

  /** Where a session's private working directory is (see `workDir`). */
  workPath(id: string): string {
    return path.join(this.folderOf(id), 'work');
  }

  /** The private working directory of a session (made when first needed, removed with the session). */
  async workDir(id: string): Promise<string> {
    await this.root();
    return makeWorkDir(this.workPath(id));
  }

  private rootReady?: Promise<string>;

  /** The store's folder, made 0700 once. */
  private root(): Promise<string> {
    return (this.rootReady ??= privateDir(this.dir, true));
  }

  /** The index, once loaded (commits keep it current). */
  private loaded?: Map<string, Entry>;
  /** Commits (a record) and deletions (null) made while the index was loading, applied when it is. */
  private readonly changes = new Map<string, SessionRecord | null>();

  private load(): Promise<Map<string, Entry>> {
    this.index ??= (async () => {
      const map = new Map<string, Entry>();
      await this.root();
      const withoutRecord: string[] = [];
      for (const name of await readdir(this.dir).catch(() => [] as string[])) {
        if (!ID_RE.test(name)) continue;
        const record = await readRecord(this.dir, name);
        if (record) map.set(name, { record });
        else withoutRecord.push(name);
      }
      for (const [id, record] of this.changes) {
        if (record) map.set(id, { record });
        else map.delete(id);
      }
      // A deleted session's folder kept for the forks that work in it is not an orphan.
      for (const name of withoutRecord) if (!borrowed(this.workPath(name), map)) await removeOrphan(this.dir, name);
      this.changes.clear();
      this.loaded = map;
      await this.evict(map);
      return map;
    })();
    return this.index;
  }

  /** The record of a session; SessionNotFoundError when there is none (or it has expired). */
  async get(id: string): Promise<SessionRecord> {
    // One lookup reads one record; the whole index is loaded only to list or to evict.
    const record = this.loaded?.get(id)?.record ?? (ID_RE.test(id) ? await readRecord(this.dir, id) : undefined);
    if (!record || this.expired(record)) throw new SessionNotFoundError(id);
    return structuredClone(record);
  }

  async list(): Promise<SessionSummary[]> {
    const map = await this.load();
    return [...map.values()]
      .map((e) => e.record)
      .filter((r) => !this.expired(r))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .map(({ native: _n, toolChanges: _t, messageCount: _c, ...summary }) => summary);
  }

  /** The transcript of the session's committed turns (see `readTranscript`). */
  async transcript(id: string): Promise<TranscriptMessage[]> {
    const record = await this.get(id);
    return readTranscript(this.folderOf(id), record.messageCount);
  }

  async detail(id: string): Promise<SessionDetail> {
    const { native: _n, messageCount: _c, ...record } = await this.get(id);
    return { ...record, messages: await this.transcript(id) };
  }

  /**
   * Open a new session's files while its first turn runs, so that its commit writes each in one
   * call (see NewSessionFiles); `commit` or `discard` closes them.
   */
  prepareNew(id: string): void {
    this.newFiles.set(id, new NewSessionFiles(this.folderOf(id), [TRANSCRIPT, RECORD]));
  }

  /** Hold a session for one turn (or one fallback chat); a second holder gets SessionBusyError (409). */
  lock(id: string): () => void {
    if (this.busy.has(id)) throw new SessionBusyError(id);
    this.busy.add(id);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy.delete(id);
    };
  }

  isBusy(id: string): boolean {
    return this.busy.has(id);
  }

  /**
   * Write a finished turn: its messages appended to the transcript first (a new session's folder
   * gets the whole transcript so far, e.g. a fork's), then the record that makes them count.
   * A new session's two files are written in place rather than renamed into it: nobody knows its
   * id before the record is whole, and a torn record is no record (its folder is an orphan, removed
   * later). With no mkdir where the folder exists, a new session's commit is 6 file system calls
   * instead of 14 (2 when its files were opened while the turn ran: `prepareNew`), a continued
   * one's 7 instead of 11: each is a round trip through the thread pool.
   */
  async commit(
    record: SessionRecord,
    before: readonly TranscriptMessage[],
    added: readonly TranscriptMessage[],
    isNew: boolean,
  ): Promise<void> {
    await this.root();
    const folder = this.folderOf(record.id);
    const full: SessionRecord = { ...record, messageCount: before.length + added.length };
    const recordText = JSON.stringify({ version: 1, ...full });
    if (isNew) {
      const files = this.newFiles.get(record.id);
      this.newFiles.delete(record.id);
      await writeNewSession(folder, [...before, ...added], recordText, files);
    } else {
      const committed = (this.loaded?.get(record.id)?.record ?? (await readRecord(this.dir, record.id)))?.messageCount ?? before.length;
      await writeNextTurn(folder, before, added, committed, recordText);
    }
    if (this.loaded) this.loaded.set(record.id, { record: structuredClone(full) });
    else this.changes.set(record.id, structuredClone(full));
    this.evictSoon();
  }

  async delete(id: string): Promise<void> {
    const record = await this.get(id);
    if (this.busy.has(id)) throw new SessionBusyError(id);
    if (this.loaded) this.loaded.delete(id);
    else this.changes.set(id, null);
    await removeSessionFiles(this.dir, record, await this.load());
  }

  /** Forget a folder made for a turn that failed before its first commit. */
  async discard(id: string): Promise<void> {
    await this.newFiles.get(id)?.close();
    this.newFiles.delete(id);
    if (this.loaded?.has(id) || (await readRecord(this.dir, id))) return;
    await rm(this.folderOf(id), { recursive: true, force: true }).catch(() => undefined);
  }

  private expired(record: SessionRecord): boolean {
    return Date.now() - Date.parse(record.updatedAt) > this.maxAgeMs;
  }

  private evicting = false;

  /** Evict in the background, once at a time: a commit never waits for it (nor for the index to load). */
  private evictSoon(): void {
    if (this.evicting) return;
    this.evicting = true;
    setImmediate(() => {
      void this.load()
        .then((map) => this.evict(map))
        .catch(() => undefined)
        .finally(() => (this.evicting = false));
    });
  }

  /** Expired sessions, then the least recently used beyond the count limit; never one that is busy. */
  private async evict(map: Map<string, Entry>): Promise<void> {
    const doomed = [...map.values()].filter((e) => this.expired(e.record)).map((e) => e.record.id);
    const live = [...map.values()]
      .filter((e) => !this.expired(e.record))
      .sort((a, b) => a.record.updatedAt.localeCompare(b.record.updatedAt));
    for (let i = 0; live.length - i > this.maxSessions; i++) doomed.push(live[i]!.record.id);
    for (const id of doomed) {
      if (this.busy.has(id)) continue;
      const record = map.get(id)!.record;
      map.delete(id);
      await removeSessionFiles(this.dir, record, map);
    }
  }
}
