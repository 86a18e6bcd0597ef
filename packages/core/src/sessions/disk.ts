import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inDir, privateDir, replaceFile } from '../files.js';
import type { SessionDetail, SessionSummary, TranscriptMessage } from '../types.js';
import type { NewSessionFiles } from './new-files.js';
import { SESSION_ID_PATTERN } from '../wire/chat.js';

/**
 * How a session lies on disk: one folder per session under the store's folder, holding its record
 * (`session.json`, written last, what makes a turn count), its transcript (`transcript.jsonl`) and
 * its private working directory (`work/`).
 */

/** What the store keeps about a session besides its transcript. */
export interface SessionRecord extends SessionSummary {
  /** The tool's own session, when the tool that owns the session has one (never sent to callers as `sessionId`). */
  native?: { toolId: string; sessionId: string };
  toolChanges: SessionDetail['toolChanges'];
  /** Transcript lines that belong to finished turns. */
  messageCount?: number;
}

export const ID_RE = new RegExp(SESSION_ID_PATTERN);
export const RECORD = 'session.json';
export const TRANSCRIPT = 'transcript.jsonl';
/** A folder without a record is a first turn that never finished; gone after this long. */
const ORPHAN_AGE_MS = 60 * 60_000;

/** A session's record as written, or undefined when it is missing, torn or not that session's. */
export async function readRecord(dir: string, id: string): Promise<SessionRecord | undefined> {
  try {
    const { version: _v, ...parsed } = JSON.parse(await readFile(path.join(dir, id, RECORD), 'utf8')) as SessionRecord & {
      version?: number;
    };
    return parsed.id === id && typeof parsed.toolId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The transcript: one JSON message per line, appended as turns finish. Only the lines of
 * committed turns count: a process killed mid-write leaves at most a torn or extra tail, skipped.
 */
export async function readTranscript(folder: string, messageCount: number | undefined): Promise<TranscriptMessage[]> {
  let text: string;
  try {
    text = await readFile(path.join(folder, TRANSCRIPT), 'utf8');
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
  return messages.slice(0, messageCount ?? messages.length);
}

/** Remove the folder of a first turn that never finished, once it is old enough not to be one still running. */
export async function removeOrphan(dir: string, id: string): Promise<void> {
  const s = await stat(path.join(dir, id)).catch(() => undefined);
  if (s && Date.now() - s.mtimeMs > ORPHAN_AGE_MS) await rm(path.join(dir, id), { recursive: true, force: true }).catch(() => undefined);
}

/** Whether a session among `records` works in `work` (a native fork runs in the private directory of the session it was forked from). */
export function borrowed(work: string, records: ReadonlyMap<string, { record: SessionRecord }>): boolean {
  for (const e of records.values()) if (e.record.cwd === work) return true;
  return false;
}

/**
 * Remove a deleted session's files. Its private directory stays while a fork still works in
 * it (the fork's files and the tool's own session live there), and goes with the last of them.
 */
export async function removeSessionFiles(
  dir: string,
  record: SessionRecord,
  records: ReadonlyMap<string, { record: SessionRecord }>,
): Promise<void> {
  const folder = path.join(dir, record.id);
  if (borrowed(path.join(folder, 'work'), records)) {
    for (const file of [RECORD, TRANSCRIPT]) await rm(path.join(folder, file), { force: true }).catch(() => undefined);
  } else await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  const lender = record.cwd && path.dirname(record.cwd);
  if (lender && path.basename(record.cwd!) === 'work' && path.dirname(lender) === dir) {
    const lenderId = path.basename(lender);
    if (!records.has(lenderId) && !borrowed(record.cwd!, records))
      await rm(lender, { recursive: true, force: true }).catch(() => undefined);
  }
}

const unlessExists = (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EEXIST') throw e;
};

/**
 * A session's private working directory: the session's folder, then the directory in it, two
 * mkdirs, where a recursive one tries the deepest first and fails when the folder is new (three).
 */
export async function makeWorkDir(work: string): Promise<string> {
  try {
    for (const dir of [path.dirname(work), work]) await mkdir(dir, { mode: 0o700 }).catch(unlessExists);
    return work;
  } catch {
    return privateDir(work); // the store's own folder was removed meanwhile (by hand): made again
  }
}

const jsonl = (messages: readonly TranscriptMessage[]) => messages.map((m) => JSON.stringify(m) + '\n').join('');

/** A new session's first commit: its whole transcript, then its record, in the files opened while the turn ran when there are. */
export async function writeNewSession(
  folder: string,
  messages: readonly TranscriptMessage[],
  recordText: string,
  files: NewSessionFiles | undefined,
): Promise<void> {
  const transcript = jsonl(messages);
  if (await files?.write([transcript, recordText])) return;
  await inDir(folder, () => writeFile(path.join(folder, TRANSCRIPT), transcript, { mode: 0o600 }));
  await writeFile(path.join(folder, RECORD), recordText, { mode: 0o600 });
}

/** A continued session's commit: its turn's messages appended (or the transcript rewritten), then its record replaced. */
export async function writeNextTurn(
  folder: string,
  before: readonly TranscriptMessage[],
  added: readonly TranscriptMessage[],
  committed: number,
  recordText: string,
): Promise<void> {
  const transcript = path.join(folder, TRANSCRIPT);
  // Messages beyond the last committed count are a turn that never finished: rewrite rather than append after them.
  await inDir(folder, () =>
    committed !== before.length
      ? replaceFile(transcript, jsonl([...before, ...added]))
      : appendFile(transcript, jsonl(added), { mode: 0o600 }),
  );
  await replaceFile(path.join(folder, RECORD), recordText);
}
