import { mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { imagesOf, runProcess } from '@toolbridge/adapter-kit';
import { imageExtension, InvalidRequestError, type CallContext, type ChatContext, type ToolRequest } from '@toolbridge/core';
import { TOOL_ID } from './config.js';
import { parseModels, providerOf, type ModelCatalog } from './models.js';

/** How long a provider's model list is trusted for image checks (it changes with the user's config). */
const CATALOG_TTL_MS = 5 * 60_000;

/**
 * Which models take images, from `opencode models <provider> --verbose` (2–8 s, so cached per
 * provider and environment). OpenCode itself does not refuse an image a model cannot take: it
 * replaces it with the text `ERROR: Cannot read "<file>" (this model does not support image
 * input)` and the run exits 0 (measured, FACTS §4), so the check has to be ours.
 */
export class ModelCatalogs {
  private readonly cache = new Map<string, { at: number; catalog: Promise<ModelCatalog> }>();

  constructor(
    private readonly command: string,
    private readonly timeoutMs: number,
  ) {}

  async takesImages(model: string, ctx: CallContext): Promise<boolean> {
    const provider = providerOf(model) ?? '';
    const key = JSON.stringify([provider, ctx.env.PATH, ctx.env.HOME, ctx.env.XDG_CONFIG_HOME, ctx.env.OPENCODE_CONFIG_CONTENT]);
    let entry = this.cache.get(key);
    if (!entry || Date.now() - entry.at > CATALOG_TTL_MS) {
      const catalog = runProcess({
        command: this.command,
        args: ['models', provider, '--verbose'],
        env: ctx.env,
        signal: ctx.signal,
        toolId: TOOL_ID,
        timeoutMs: this.timeoutMs,
      }).then((r) => parseModels(r.stdout));
      entry = { at: Date.now(), catalog };
      this.cache.set(key, entry);
      // A failed lookup is not kept: the next chat asks again.
      catalog.catch(() => this.cache.get(key) === entry && this.cache.delete(key));
    }
    return (await entry.catalog).vision.has(model);
  }
}

/**
 * The request's images as files for `-f`, 0600 in a directory of this run's own inside the call's
 * scratch directory (core removes it after the call, however it ends). A model known not to take
 * images is refused before anything runs; with no model named OpenCode picks its default, which
 * cannot be checked here.
 */
export async function imageFiles(
  request: ToolRequest,
  ctx: ChatContext,
  model: string | undefined,
  catalogs: ModelCatalogs,
): Promise<string[]> {
  const images = imagesOf(request.messages);
  if (images.length === 0) return [];
  if (model && !(await catalogs.takesImages(model, ctx))) {
    throw new InvalidRequestError(
      `OpenCode model ${model} does not take images (its capabilities in "opencode models --verbose" have no image input); pick a model that does`,
      { toolId: TOOL_ID },
    );
  }
  // One directory per run: core's repair turn may run twice in one scratch directory.
  const dir = await mkdtemp(path.join(await ctx.scratchDir(), 'run-'));
  const files: string[] = [];
  for (const [i, image] of images.entries()) {
    const file = path.join(dir, `image-${i + 1}.${imageExtension(image.mediaType)}`);
    await writeFile(file, Buffer.from(image.data, 'base64'), { mode: 0o600, flag: 'wx' });
    files.push(file);
  }
  return files;
}
