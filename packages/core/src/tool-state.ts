import { QuotaExceededError, RateLimitError, ToolAuthError, ToolUnavailableError, type ToolbridgeError } from './errors.js';
import type { AuthState, UsageLimits } from './types.js';

/** What the registry last learned about a tool; used to skip tools that cannot answer. */
export interface ToolState {
  /**
   * The last login state seen, when, and whether a chat (proof) or a check (`checkAuth`, health) said
   * so. For a chat the provider refused (401), `login` is the login the checks saw then.
   */
  auth?: AuthState & { observedAt: number; source: 'chat' | 'check'; login?: string };
  /** The login the latest check saw (its method, plan and detail), to tell whether it has changed since. */
  checkedLogin?: string;
  /** When a chat last succeeded (epoch ms): a check saying "logged out" after it does not outweigh it. */
  lastSuccessAt?: number;
  usageLimits?: UsageLimits;
  /** When the observation behind `usageLimits` was taken (epoch ms): the start of the read that returned it. */
  usageTakenAt?: number;
  /** When a chat last ended in a way that changes the windows (epoch ms): a read begun before it is out of date. */
  windowsChangedAt?: number;
  /** A rate limit seen on a recent chat: the tool is cooling down until then (epoch ms). */
  coolDownUntil?: number;
  coolDownReason?: 'rate_limited' | 'quota_exceeded';
}

/** Which cached records a lesson makes wrong. */
export interface StaleRecords {
  health(toolId: string): void;
  discovery(toolId: string): void;
  /** A chat changed the tool's usage windows: read them again (off the chat's path). */
  usage?(toolId: string): void;
}

/** Told each time a tool's known usage windows change (the usage ledger keeps them). */
export type WindowsListener = (toolId: string, limits: UsageLimits, takenAt: number) => void;

/** What chats and checks have taught about each tool: logged out, cooling down, usage windows. */
export class ToolStates {
  private readonly states = new Map<string, ToolState>();

  constructor(
    private readonly stale: StaleRecords,
    /** Tools whose usage windows come with each answer (Codex's session log, Claude's rate-limit headers). */
    private readonly hasUsageWindows: (toolId: string) => boolean,
    private readonly onWindows?: WindowsListener,
  ) {}

  /**
   * Keep an observation of the tool's usage windows taken at `takenAt` (epoch ms, when the read
   * began) unless a newer one is known, or a chat has changed the windows since the read began:
   * an older observation never replaces a newer one. False when it was refused.
   */
  learnUsage(toolId: string, limits: UsageLimits, takenAt: number): boolean {
    const s = this.of(toolId);
    if (takenAt < (s.usageTakenAt ?? -Infinity) || takenAt < (s.windowsChangedAt ?? -Infinity)) return false;
    const changed = JSON.stringify(s.usageLimits?.windows ?? null) !== JSON.stringify(limits.windows ?? null);
    s.usageLimits = limits;
    s.usageTakenAt = takenAt;
    if (changed && limits.status === 'available') {
      try {
        this.onWindows?.(toolId, limits, takenAt);
      } catch {
        // A listener's failure must not change what the registry knows.
      }
    }
    return true;
  }

  /** A chat ended in a way that moves the tool's usage windows: what was read before it is out of date. */
  private windowsMoved(toolId: string): void {
    if (!this.hasUsageWindows(toolId)) return;
    this.of(toolId).windowsChangedAt = Date.now();
    this.stale.usage?.(toolId);
  }

  of(toolId: string): ToolState {
    let s = this.states.get(toolId);
    if (!s) this.states.set(toolId, (s = {}));
    return s;
  }

  /** Remember what a failure says about the tool, for later preflight decisions. */
  learnFrom(toolId: string, error: ToolbridgeError): void {
    const s = this.of(toolId);
    if (ToolAuthError.isInstance(error)) {
      s.auth = {
        authenticated: false,
        detail: error.message,
        observedAt: Date.now(),
        source: 'chat',
        ...(s.checkedLogin ? { login: s.checkedLogin } : {}),
      };
      this.stale.health(toolId);
    } else if (RateLimitError.isInstance(error)) {
      const wait = (error as RateLimitError).waitMs();
      if (wait !== undefined && wait > 0) {
        s.coolDownUntil = Date.now() + wait;
        s.coolDownReason = QuotaExceededError.isInstance(error) ? 'quota_exceeded' : 'rate_limited';
      }
      // Usage windows come from the provider's last answer: this one changed them.
      this.stale.health(toolId);
      this.windowsMoved(toolId);
    } else if (ToolUnavailableError.isInstance(error) && (error as ToolbridgeError).details?.notInstalled === true) {
      // The tool went away since it was detected: the next discovery must not claim it is there.
      this.stale.discovery(toolId);
      this.stale.health(toolId);
    }
  }

  /** A chat answered: the tool is logged in, whatever an older check said, and it is not cooling down. */
  learnSuccess(toolId: string): void {
    const s = this.of(toolId);
    if (s.auth?.authenticated === false || this.hasUsageWindows(toolId)) this.stale.health(toolId);
    s.auth = { authenticated: true, observedAt: Date.now(), source: 'chat' };
    s.lastSuccessAt = Date.now();
    s.coolDownUntil = undefined;
    this.windowsMoved(toolId);
  }

  /**
   * A check (`checkAuth`, health) reported the login state. A check reads files and variables, so
   * after a chat the provider refused it would still say "logged in" (Gemini, Copilot): the chat's
   * word stands until a later chat succeeds or the login the check sees changes.
   */
  learnAuth(toolId: string, auth: AuthState): void {
    const s = this.of(toolId);
    const login = JSON.stringify([auth.method, auth.plan, auth.detail]);
    s.checkedLogin = login;
    const refused = s.auth?.source === 'chat' && !s.auth.authenticated ? s.auth : undefined;
    if (refused && auth.authenticated) {
      // No check before the refusal: this one is the login it was refused with.
      if (refused.login === undefined) refused.login = login;
      if (refused.login === login) return;
    }
    s.auth = { ...auth, observedAt: Date.now(), source: 'check' };
  }

  /** A chat the provider refused, still standing (no success since, the same login): health says unauthenticated. */
  refusedByChat(toolId: string): (AuthState & { observedAt: number }) | undefined {
    const auth = this.states.get(toolId)?.auth;
    return auth?.source === 'chat' && !auth.authenticated ? auth : undefined;
  }
}
