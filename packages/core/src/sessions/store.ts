import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SessionBusyError, SessionNotFoundError } from '../errors.js';
import { inDir, privateDir, replaceFile } from '../files.js';
import { NewSessionFiles } from './new-files.js';
import type { SessionDetail, SessionSummary, TranscriptMessage } from '../types.js';
import { SESSION_ID_PATTERN } from '../wire/chat.js';

export interface SessionStoreOptions {
  /** Where sessions live: one folder each (record, transcript, private working directory). */
  dir: string;
  /** Most sessions kept; the least recently used go first (default 1000). */
  maxSessions?: number;
  /** Sessions unused for longer are deleted (default 30 days). */
  maxAgeMs?: number;
}

/** What the store keeps about a session besides its transcript. */
export interface SessionRecord extends SessionSummary {
  /** The tool's own session, when the tool that owns the session has one (never sent to callers as `sessionId`). */
  native?: { toolId: string; sessionId: string };
  toolChanges: SessionDetail['toolChanges'];
  /** Transcript lines that belong to finished turns. */
  messageCount?: number;
}

interface Entry {
  record: SessionRecord;
}

const ID_RE = new RegExp(SESSION_ID_PATTERN);
const RECORD = 'session.json';
const TRANSCRIPT = 'transcript.jsonl';
/** A folder without a record is a first turn that never finished; gone after this long. */
const ORPHAN_AGE_MS = 60 * 60_000;

const unlessExists = (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EEXIST') throw e;
};

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

  /**
   * The private working directory of a session (made when first needed, removed with the session).
   * The session's folder, then the directory in it: two mkdirs, where a recursive one tries the
   * deepest first and fails when the folder is new (three).
   */
  async workDir(id: string): Promise<string> {
    await this.root();
    const work = this.workPath(id);
    try {
      for (const dir of [path.dirname(work), work]) await mkdir(dir, { mode: 0o700 }).catch(unlessExists);
      return work;
    } catch {
      return privateDir(work); // the store's own folder was removed meanwhile (by hand): made again
    }
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
        const record = await this.readRecord(name);
        if (record) map.set(name, { record });
        else withoutRecord.push(name);
      }
      for (const [id, record] of this.changes) {
        if (record) map.set(id, { record });
        else map.delete(id);
      }
      // A deleted session's folder kept for the forks that work in it is not an orphan.
      for (const name of withoutRecord) if (!this.borrowed(this.workPath(name), map)) await this.removeOrphan(name);
      this.changes.clear();
      this.loaded = map;
      await this.evict(map);
      return map;
    })();
    return this.index;
  }

  private async readRecord(id: string): Promise<SessionRecord | undefined> {
    try {
      const { version: _v, ...parsed } = JSON.parse(await readFile(path.join(this.dir, id, RECORD), 'utf8')) as SessionRecord & {
        version?: number;
      };
      return parsed.id === id && typeof parsed.toolId === 'string' ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  private async removeOrphan(id: string): Promise<void> {
    const s = await stat(path.join(this.dir, id)).catch(() => undefined);
    if (s && Date.now() - s.mtimeMs > ORPHAN_AGE_MS)
      await rm(path.join(this.dir, id), { recursive: true, force: true }).catch(() => undefined);
  }

  /** The record of a session; SessionNotFoundError when there is none (or it has expired). */
  async get(id: string): Promise<SessionRecord> {
    // One lookup reads one record; the whole index is loaded only to list or to evict.
    const record = this.loaded?.get(id)?.record ?? (ID_RE.test(id) ? await this.readRecord(id) : undefined);
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

  /**
   * The transcript: one JSON message per line, appended as turns finish. Only the lines of
   * committed turns count: a process killed mid-write leaves at most a torn or extra tail, skipped.
   */
  async transcript(id: string): Promise<TranscriptMessage[]> {
    const record = await this.get(id);
    let text: string;
    try {
      text = await readFile(path.join(this.folderOf(id), TRANSCRIPT), 'utf8');
    } catch {
      return [];
    }
    const messages: TranscriptMessage[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        messages.push(JSON.parse(line) as TranscriptMessage);
      } catch {
        // a torn line
      }
    }
    return messages.slice(0, record.messageCount ?? messages.length);
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
    const jsonl = (messages: readonly TranscriptMessage[]) => messages.map((m) => JSON.stringify(m) + '\n').join('');
    const full: SessionRecord = { ...record, messageCount: before.length + added.length };
    const recordText = JSON.stringify({ version: 1, ...full });
    if (isNew) {
      const files = this.newFiles.get(record.id);
      this.newFiles.delete(record.id);
      const transcript = jsonl([...before, ...added]);
      if (!(await files?.write([transcript, recordText]))) {
        await inDir(folder, () => writeFile(path.join(folder, TRANSCRIPT), transcript, { mode: 0o600 }));
        await writeFile(path.join(folder, RECORD), recordText, { mode: 0o600 });
      }
    } else {
      // Messages beyond the last committed count are a turn that never finished: rewrite rather than append after them.
      const committed = (this.loaded?.get(record.id)?.record ?? (await this.readRecord(record.id)))?.messageCount ?? before.length;
      const transcript = path.join(folder, TRANSCRIPT);
      await inDir(folder, () =>
        committed !== before.length
          ? replaceFile(transcript, jsonl([...before, ...added]))
          : appendFile(transcript, jsonl(added), { mode: 0o600 }),
      );
      await replaceFile(path.join(folder, RECORD), recordText);
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
    await this.removeFolder(record, await this.load());
  }

  /** Whether a session in `map` works in `work` (a native fork runs in the private directory of the session it was forked from). */
  private borrowed(work: string, map: Map<string, Entry>): boolean {
    for (const e of map.values()) if (e.record.cwd === work) return true;
    return false;
  }

  /**
   * Remove a deleted session's files. Its private directory stays while a fork still works in
   * it (the fork's files and the tool's own session live there), and goes with the last of them.
   */
  private async removeFolder(record: SessionRecord, map: Map<string, Entry>): Promise<void> {
    const folder = path.join(this.dir, record.id);
    if (this.borrowed(path.join(folder, 'work'), map)) {
      for (const file of [RECORD, TRANSCRIPT]) await rm(path.join(folder, file), { force: true }).catch(() => undefined);
    } else await rm(folder, { recursive: true, force: true }).catch(() => undefined);
    const lender = record.cwd && path.dirname(record.cwd);
    if (lender && path.basename(record.cwd!) === 'work' && path.dirname(lender) === this.dir) {
      const lenderId = path.basename(lender);
      if (!map.has(lenderId) && !this.borrowed(record.cwd!, map)) await rm(lender, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Forget a folder made for a turn that failed before its first commit. */
  async discard(id: string): Promise<void> {
    await this.newFiles.get(id)?.close();
    this.newFiles.delete(id);
    if (this.loaded?.has(id) || (await this.readRecord(id))) return;
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
      await this.removeFolder(record, map);
    }
  }
}
