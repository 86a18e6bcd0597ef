import { runProcess } from '@toolbridge/adapter-kit';
import { type CallContext } from '@toolbridge/core';
import { failureOf } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';

/** One model of Codex's catalog, as much of it as discovery needs. */
export interface CatalogModel {
  slug: string;
  displayName?: string;
  /** `visibility: "list"`: shown in Codex's own model picker (`hide` ones are internal). */
  visible: boolean;
  /** Codex orders its picker by this (lowest first); the first visible one is its default. */
  priority: number;
  /** `input_modalities` includes `image`. */
  images: boolean;
}

/** `codex debug models` output (`{"models":[...]}`) to catalog entries; undefined when it is not that. */
export function parseCatalog(stdout: string): CatalogModel[] | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const models = (doc as { models?: unknown })?.models;
  if (!Array.isArray(models)) return undefined;
  const out: CatalogModel[] = [];
  for (const m of models as Array<Record<string, unknown>>) {
    if (typeof m?.slug !== 'string' || !m.slug) continue;
    out.push({
      slug: m.slug,
      ...(typeof m.display_name === 'string' ? { displayName: m.display_name } : {}),
      visible: m.visibility === undefined || m.visibility === 'list',
      priority: typeof m.priority === 'number' ? m.priority : Number.MAX_SAFE_INTEGER,
      // No modalities listed: Codex's default for a model is text and image.
      images: !Array.isArray(m.input_modalities) || m.input_modalities.includes('image'),
    });
  }
  return out;
}

/** The visible models in Codex's own order (its picker's, whose first is its default model). */
export function visibleModels(catalog: readonly CatalogModel[]): CatalogModel[] {
  return catalog.filter((m) => m.visible).sort((a, b) => a.priority - b.priority);
}

/**
 * Codex's model catalog from `codex debug models`: offline (it made no request in any setup
 * tried; about 0.1–0.4 s and 745 kB of JSON here). Undefined when this Codex cannot print it (an
 * older version) or it fails: discovery then lists only configured models. Only the caller's own
 * deadline or cancel is thrown.
 */
export async function readCatalog(ctx: CallContext, command: string, timeoutMs: number): Promise<CatalogModel[] | undefined> {
  try {
    const run = await runProcess({
      command,
      args: ['debug', 'models'],
      env: ctx.env,
      signal: ctx.signal,
      timeoutMs,
      toolId: TOOL_ID,
      maxOutputBytes: 16 * 1024 * 1024,
    });
    return run.exitCode === 0 ? parseCatalog(run.stdout) : undefined;
  } catch (e) {
    if (ctx.signal.aborted) throw failureOf(e, ctx.signal, TOOL_ID);
    return undefined;
  }
}
