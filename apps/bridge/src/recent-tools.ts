import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '@toolbridge/core/runtime';
import type { Toolbridge } from 'toolbridge';

/** A tool used within this long is started warm when the bridge starts (if it is installed and logged in). */
export const RECENT_USE_MS = 7 * 24 * 60 * 60_000;
/** How often the record is brought up to date (a cheap look at each tool's last answer; written only when it changed). */
const SAVE_EVERY_MS = 30_000;

/**
 * Which tools answered chats lately, remembered across restarts in a small private file
 * (`recent-tools.json` in the state directory: `{ "<toolId>": <epoch ms of its last answer> }`),
 * so `serve` starts warm processes only for tools someone actually uses.
 */
export class RecentTools {
  private readonly file: string;
  private saved: Record<string, number> = {};
  private loaded?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly toolbridge: Toolbridge,
    stateDir: string,
  ) {
    this.file = path.join(stateDir, 'recent-tools.json');
  }

  /** Tool ids used within `RECENT_USE_MS` (as the file says: what this run learned is added by `save`). */
  async recent(now = Date.now()): Promise<string[]> {
    await this.load();
    return Object.entries(this.saved)
      .filter(([, at]) => now - at < RECENT_USE_MS)
      .map(([id]) => id);
  }

  /** Keep the file up to date while the bridge runs. */
  watch(): void {
    this.timer ??= setInterval(() => void this.save(), SAVE_EVERY_MS);
    this.timer.unref();
  }

  /** Write the record when a tool answered since it was last written. */
  async save(): Promise<void> {
    await this.load();
    const next = { ...this.saved };
    for (const id of this.toolbridge.registry.toolIds) {
      const at = this.toolbridge.registry.state(id).lastSuccessAt;
      if (at !== undefined && at > (next[id] ?? 0)) next[id] = at;
    }
    if (JSON.stringify(next) === JSON.stringify(this.saved)) return;
    this.saved = next;
    // A state file we cannot write costs only the warm start of the next run.
    await writeFileAtomic(this.file, JSON.stringify(next) + '\n').catch(() => undefined);
  }

  private load(): Promise<void> {
    return (this.loaded ??= readRecord(this.file).then((record) => void (this.saved = record)));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.save();
  }
}

async function readRecord(file: string): Promise<Record<string, number>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => Number.isFinite(e[1])));
  } catch {
    return {};
  }
}
