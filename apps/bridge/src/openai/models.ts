import { modelId, type Tool } from '@toolbridge/core';

// Model ids are `<toolId>` or `<toolId>/<model>`: core's parseModelId reads them.
export { parseModelId, type ModelRef } from '@toolbridge/core';

/** Every id a tool answers to in `GET /v1/models`: the tool itself, then one per model it lists. */
export function modelIdsOf(tool: Pick<Tool, 'id' | 'models'>): string[] {
  return [tool.id, ...tool.models.map((m) => modelId(tool.id, m))];
}

/**
 * Whether `model` names one of a tool's listed models. Ollama resolves a bare
 * name to its `:latest` tag, so `qwen3` matches `qwen3:latest`.
 */
export function listsModel(tool: Pick<Tool, 'models'>, model: string): boolean {
  return tool.models.includes(model) || (!model.includes(':') && tool.models.includes(`${model}:latest`));
}

export interface OpenAIModel {
  id: string;
  object: 'model';
  /** Unix seconds. Tools do not say when a model was made; this is when the bridge started. */
  created: number;
  /** The tool that serves the model. */
  owned_by: string;
}

export function toOpenAIModels(tools: readonly Tool[], created: number): OpenAIModel[] {
  return tools
    .filter((t) => t.available)
    .flatMap((t) => modelIdsOf(t).map((id) => ({ id, object: 'model' as const, created, owned_by: t.id })));
}
