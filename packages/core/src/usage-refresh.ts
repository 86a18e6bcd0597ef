import type { ToolAdapter } from './adapter.js';
import type { CallScope } from './call-scope.js';
import type { ToolStates } from './tool-state.js';
import { withoutPassedWindows } from './usage-limits.js';

/**
 * Re-reads a tool's usage windows after a chat changed them, so routing and `/health` see the
 * chat's windows without waiting for the next check. It runs after the chat has answered (never on
 * the way to its first byte); a read under way absorbs further requests, with one more read after
 * it so the last chat's windows are always read.
 */
export class UsageRefresher {
  private readonly running = new Map<string, { again: boolean }>();

  constructor(
    private readonly adapters: ReadonlyMap<string, ToolAdapter>,
    private readonly scope: CallScope,
    private readonly states: () => ToolStates,
    private readonly timeoutMs: number,
  ) {}

  request(toolId: string): void {
    const a = this.adapters.get(toolId);
    if (!a?.usageLimits || this.scope.closed) return;
    const run = this.running.get(toolId);
    if (run) {
      run.again = true;
      return;
    }
    const state = { again: false };
    this.running.set(toolId, state);
    void this.read(a).finally(() => {
      this.running.delete(toolId);
      if (state.again) this.request(toolId);
    });
  }

  private async read(a: ToolAdapter): Promise<void> {
    const takenAt = Date.now();
    try {
      const limits = await this.scope.run(a.id, { timeoutMs: this.timeoutMs }, `${a.name} usage limits`, (ctx) => a.usageLimits!(ctx));
      this.states().learnUsage(a.id, withoutPassedWindows(limits), takenAt);
    } catch {
      // The next health check reads them again; a failed read teaches nothing.
    }
  }
}
