import { InvalidRequestError, TimeoutError } from '@toolbridge/core';
import { imagesUnsupported, raceAbort, TtlCache } from '@toolbridge/core/runtime';
import { listModels, showModel, type Connection } from './client.js';
import { TOOL_ID } from './config.js';

/** `llama3.2` names `llama3.2:latest`, as in Ollama. */
export function fullModelName(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

/** `llama3.2` and `llama3.2:latest` name the same model. */
export function sameModel(a: string, b: string): boolean {
  return fullModelName(a) === fullModelName(b);
}

/** The model of a call: the request's, else the configured one, else the first installed. */
export async function resolveModel(
  requested: string | undefined,
  configured: string | undefined,
  conn: Connection,
  signal: AbortSignal,
): Promise<string> {
  const model = requested ?? configured;
  if (model) return model;
  const installed = await listModels(conn, signal);
  if (installed.length === 0) {
    throw new InvalidRequestError('No Ollama model is installed; pull one first (e.g. `ollama pull llama3.2`) or name one', {
      toolId: TOOL_ID,
    });
  }
  return installed[0]!;
}

/**
 * A model's capabilities from `/api/show`. Servers since 0.6 list them (`["completion",
 * "vision"]`); older ones do not, and there a vision model is the one with a `projector_info`
 * (its image encoder).
 */
export function capabilitiesOfShow(show: Record<string, unknown>): string[] {
  if (Array.isArray(show.capabilities)) return show.capabilities.filter((c): c is string => typeof c === 'string');
  const projector = show.projector_info;
  const hasProjector = typeof projector === 'object' && projector !== null && Object.keys(projector).length > 0;
  return hasProjector ? ['completion', 'vision'] : ['completion'];
}

/**
 * Capabilities change only when a tag is pulled again as another model, which is rare; ten
 * minutes keeps an image chat from paying an extra request each time while a re-pull is seen soon.
 */
const CAPABILITIES_TTL_MS = 10 * 60_000;

/**
 * Each model's capabilities, asked once per server and model per TTL (concurrent callers share
 * one `/api/show`; a failed one is not kept). The lookup has its own bound (`timeoutMs`) so a
 * caller that gives up does not cancel it for the others waiting on it.
 */
export class ModelCapabilities {
  /** The latest connection to each server, for the shared lookups (fetch can be swapped per call). */
  private readonly connections = new Map<string, Connection>();
  private readonly cache = new TtlCache<string, readonly string[]>((key) => this.load(key), CAPABILITIES_TTL_MS);

  constructor(private readonly timeoutMs: number) {}

  of(conn: Connection, model: string, signal: AbortSignal): Promise<readonly string[]> {
    this.connections.set(conn.baseUrl, conn);
    return raceAbort(this.cache.get(`${conn.baseUrl}\n${fullModelName(model)}`), signal);
  }

  private async load(key: string): Promise<readonly string[]> {
    const [baseUrl, model] = key.split('\n') as [string, string];
    const conn = this.connections.get(baseUrl)!;
    const bound = new AbortController();
    const timer = setTimeout(
      () =>
        bound.abort(
          new TimeoutError(`Ollama at ${baseUrl} did not describe model "${model}" within ${this.timeoutMs} ms`, {
            toolId: TOOL_ID,
            timeoutMs: this.timeoutMs,
          }),
        ),
      this.timeoutMs,
    );
    try {
      return capabilitiesOfShow(await showModel(conn, model, bound.signal));
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A request with images for a model that cannot see them: refused before Ollama is asked. */
export function noVisionError(model: string, capabilities: readonly string[]): InvalidRequestError {
  return imagesUnsupported(
    TOOL_ID,
    `The Ollama model "${model}" cannot take images (its capabilities: ${capabilities.join(', ') || 'none listed'}); ` +
      'name a vision model, one whose `ollama show` capabilities include vision',
    { model },
  );
}
