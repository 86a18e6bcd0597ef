import { InvalidRequestError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';

/** Sessions remembered (most recent first out); enough for a bridge's live sessions. */
const MAX_SESSIONS = 2000;

/**
 * The directory each OpenCode session of this process lives in. `opencode run --session <id>`
 * with `--dir` other than the session's own hangs with no output, after storing the new user
 * message in the session (measured, FACTS §4): a turn asking for that is refused up front. Core
 * keeps a session's directory stable, so this only meets a caller who names another `cwd`; after a
 * restart the map is empty and OpenCode is trusted.
 */
export class SessionDirs {
  private readonly dirs = new Map<string, string>();

  remember(sessionId: string, dir: string): void {
    this.dirs.delete(sessionId);
    this.dirs.set(sessionId, dir);
    if (this.dirs.size > MAX_SESSIONS) this.dirs.delete(this.dirs.keys().next().value!);
  }

  /** Throws when the session is known to live elsewhere. */
  check(sessionId: string, dir: string): void {
    const own = this.dirs.get(sessionId);
    if (own !== undefined && own !== dir) {
      throw new InvalidRequestError(
        `This OpenCode session works in ${own}; continue it there (send that cwd, or none), or fork it into a new session`,
        { toolId: TOOL_ID },
      );
    }
  }
}
