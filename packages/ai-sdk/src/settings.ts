import { InvalidArgumentError, type SharedV4ProviderOptions, type SharedV4Warning } from '@ai-sdk/provider';
import { PERMISSION_LEVELS, type PermissionLevel } from 'toolbridge';

/** Where and how an agent works; for every model, per model, or per call (`providerOptions.toolbridge`). */
export interface ToolbridgeCallSettings {
  /** The agent's working directory (must exist). Default: a private directory per session. */
  cwd?: string;
  /** More directories the agent may use. */
  additionalDirs?: string[];
  /** What an agent may do: `read-only` (the default), `workspace-write` or `full`. */
  permissions?: PermissionLevel;
  /** Bound on the whole call, in ms; the tool's process is killed when it passes. */
  timeoutMs?: number;
}

/** Settings of a fallback model: the call settings plus how the chain is tried. */
export interface ToolbridgeFallbackSettings extends ToolbridgeCallSettings {
  /** Retries per tool for retryable failures (0-10, default 0). */
  retries?: number;
  /** Time for one attempt, in ms. */
  perAttemptTimeoutMs?: number;
}

/** `providerOptions.toolbridge` of one call: the call settings, plus the session to continue. */
export interface ToolbridgeProviderOptions extends ToolbridgeCallSettings {
  /** Continue this Toolbridge session (`tbs_…`, from `providerMetadata.toolbridge.sessionId`). */
  sessionId?: string;
  /** With `sessionId`: start a new session from that point; the original stays as it was. */
  fork?: boolean;
}

const KEYS = ['cwd', 'additionalDirs', 'permissions', 'timeoutMs', 'sessionId', 'fork'] as const;

function invalid(key: string, message: string): InvalidArgumentError {
  const argument = key ? `providerOptions.toolbridge.${key}` : 'providerOptions.toolbridge';
  return new InvalidArgumentError({ argument, message: `${argument} ${message}` });
}

/**
 * Read `providerOptions.toolbridge`: wrong types are the caller's mistake (InvalidArgumentError
 * naming the key); unknown keys become warnings rather than being dropped unseen. Values are
 * checked in depth by the library (cwd exists, session id pattern, ...).
 */
export function readProviderOptions(
  providerOptions: SharedV4ProviderOptions | undefined,
  warnings: SharedV4Warning[],
): ToolbridgeProviderOptions {
  const raw = providerOptions?.toolbridge;
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('', 'must be an object');
  const o = raw as Record<string, unknown>;
  const out: ToolbridgeProviderOptions = {};
  const str = (key: 'cwd' | 'sessionId') => {
    if (o[key] === undefined) return;
    if (typeof o[key] !== 'string' || o[key] === '') throw invalid(key, 'must be a non-empty string');
    out[key] = o[key] as string;
  };
  str('cwd');
  str('sessionId');
  if (o.additionalDirs !== undefined) {
    if (!Array.isArray(o.additionalDirs) || !o.additionalDirs.every((d) => typeof d === 'string' && d !== ''))
      throw invalid('additionalDirs', 'must be an array of directory paths');
    out.additionalDirs = o.additionalDirs as string[];
  }
  if (o.permissions !== undefined) {
    if (!(PERMISSION_LEVELS as readonly unknown[]).includes(o.permissions))
      throw invalid('permissions', `must be one of ${PERMISSION_LEVELS.join(', ')}`);
    out.permissions = o.permissions as PermissionLevel;
  }
  if (o.timeoutMs !== undefined) {
    if (typeof o.timeoutMs !== 'number' || !Number.isInteger(o.timeoutMs) || o.timeoutMs < 1)
      throw invalid('timeoutMs', 'must be a positive integer number of milliseconds');
    out.timeoutMs = o.timeoutMs;
  }
  if (o.fork !== undefined) {
    if (typeof o.fork !== 'boolean') throw invalid('fork', 'must be a boolean');
    out.fork = o.fork;
  }
  const unknown = Object.keys(o).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    warnings.push({
      type: 'other',
      message: `providerOptions.toolbridge: unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.join(', ')} ignored (known: ${KEYS.join(', ')})`,
    });
  }
  return out;
}
