type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export interface ModelListing {
  models: string[];
  defaultModel?: string;
  /** Models whose settings declare image input (`generationConfig.modalities.image`). */
  vision: Set<string>;
}

/**
 * Qwen Code's own model listing, read from its settings as `/model` shows it: the models of each
 * configured provider (`modelProviders.<authType>[].id`) and the selected one (`model.name`, else
 * the sign-in's model variable such as `OPENAI_MODEL`). The configured `qwenCodeModel` comes first.
 */
export function listModels(settings: Json | undefined, env: NodeJS.ProcessEnv, configured: string | undefined): ModelListing {
  const vision = new Set<string>();
  const listed: string[] = [];
  for (const entries of Object.values(obj(settings?.modelProviders) ?? {})) {
    for (const entry of Array.isArray(entries) ? entries : []) {
      const id = str(obj(entry)?.id);
      if (!id) continue;
      listed.push(id);
      if (obj(obj(obj(entry)?.generationConfig)?.modalities)?.image === true) vision.add(id);
    }
  }
  const model = settings?.model;
  const selected = typeof model === 'string' ? str(model) : str(obj(model)?.name);
  const defaultModel = configured ?? selected ?? str(env.OPENAI_MODEL) ?? str(env.QWEN_MODEL);
  const models = [...new Set([...(defaultModel ? [defaultModel] : []), ...listed])];
  return { models, ...(defaultModel ? { defaultModel } : {}), vision };
}
