/** A model id as the bridge's `/v1` and the AI SDK provider take it: a tool, and maybe one of its models. */
export interface ModelRef {
  toolId: string;
  model?: string;
}

/**
 * `<toolId>` is the tool with its configured or default model; `<toolId>/<model>` names the model.
 * Only the FIRST `/` separates them, so models that contain slashes keep them:
 * `opencode/anthropic/claude-sonnet-4-5` is OpenCode with `anthropic/claude-sonnet-4-5`,
 * `ollama/qwen3:14b` is Ollama with `qwen3:14b`.
 */
export function parseModelId(id: string): ModelRef {
  const slash = id.indexOf('/');
  if (slash < 0) return { toolId: id };
  const model = id.slice(slash + 1);
  return model ? { toolId: id.slice(0, slash), model } : { toolId: id.slice(0, slash) };
}

/** The id that names `model` of `toolId` (the inverse of parseModelId). */
export function modelId(toolId: string, model?: string): string {
  return model ? `${toolId}/${model}` : toolId;
}
