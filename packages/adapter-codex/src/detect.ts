import { probeVersion } from '@toolbridge/adapter-kit';
import type { CallContext, Capability, DetectResult } from '@toolbridge/core';
import { readCatalog, visibleModels, type CatalogModel } from './models.js';
import { codexConfig, TOOL_ID } from './config.js';
import { readCodexUserConfig, type CodexUserConfig } from './user-config.js';

export interface ModelChoice {
  models: string[];
  defaultModel?: string;
  /** Whether the default model takes images. */
  vision: boolean;
}

/**
 * Which models to report, and which is the default. The default is the one a chat without a
 * model uses: Toolbridge's `codexModel`, else the `model` of the user's config (or profile), else
 * the first of Codex's catalog in its own order (what Codex itself picks). The catalog lists
 * OpenAI's models, so it is reported only when the provider is OpenAI's; a custom or local
 * provider (Ollama, LM Studio, a gateway) serves what its config names, and only that is listed.
 */
export function chooseModels(
  configured: string | undefined,
  user: CodexUserConfig,
  catalog: readonly CatalogModel[] | undefined,
): ModelChoice {
  const wanted = configured ?? user.model;
  const openai = user.provider.id === 'openai' && !user.provider.custom;
  const listed = openai && catalog ? visibleModels(catalog) : [];
  const slugs = listed.map((m) => m.slug);
  const defaultModel = wanted ?? slugs[0];
  const models = defaultModel && !slugs.includes(defaultModel) ? [defaultModel, ...slugs] : slugs;
  // A model the catalog does not know gets Codex's fallback metadata, with which it still sends images.
  const entry = defaultModel ? catalog?.find((m) => m.slug === defaultModel) : undefined;
  return { models, ...(defaultModel ? { defaultModel } : {}), vision: entry ? entry.images : true };
}

/** `codex --version`, the user's config and `codex debug models`, in parallel. */
export async function detectCodex(ctx: CallContext, o: { command: string; timeoutMs: number; codexHome: string }): Promise<DetectResult> {
  const settings = codexConfig.read(ctx.config);
  const [probe, user, catalog] = await Promise.all([
    probeVersion(ctx, { command: o.command, toolId: TOOL_ID, timeoutMs: o.timeoutMs }),
    readCodexUserConfig(o.codexHome, settings.profile),
    readCatalog(ctx, o.command, o.timeoutMs),
  ]);
  const choice = chooseModels(settings.model, user, catalog);
  const models = { models: choice.models, ...(choice.defaultModel ? { defaultModel: choice.defaultModel } : {}) };
  if (!probe.available) return { available: false, ...models, reason: probe.reason };
  const capabilities: Capability[] = choice.vision ? ['vision'] : [];
  return { available: true, version: probe.version, ...models, capabilities };
}
