import path from 'node:path';
import type { Activity } from './types.js';

/**
 * The activities of one turn: the latest state of each step (by `id`), in the order the steps
 * started. File paths inside the working directory are shown relative to it.
 */
export class ActivityLog {
  private readonly byId = new Map<string, Activity>();

  constructor(private readonly cwd: string) {}

  /** Record an update and return it as callers should see it. */
  update(activity: Activity): Activity {
    const shown =
      activity.kind === 'file_change'
        ? { ...activity, changes: activity.changes.map((c) => ({ ...c, path: this.relative(c.path) })) }
        : activity;
    this.byId.set(shown.id, shown);
    return shown;
  }

  /** Final states; a step still `started`/`updated` when the turn ended is reported as it last was. */
  list(): Activity[] {
    return [...this.byId.values()];
  }

  private relative(p: string): string {
    if (!path.isAbsolute(p)) return p;
    const rel = path.relative(this.cwd, p);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
  }
}
