/**
 * Model ids, as the bridge's `/v1` reads them (apps/bridge/src/openai/models.ts): `<toolId>` is the
 * tool with its configured or default model, `<toolId>/<model>` names the model. Only the FIRST `/`
 * separates them, so `opencode/anthropic/claude-sonnet-4-5` is OpenCode with
 * `anthropic/claude-sonnet-4-5`. Reimplemented here because a provider must not import the bridge;
 * the one parse belongs in `toolbridge` for both.
 */
export interface ModelRef {
  toolId: string;
  model?: string;
}

export function parseModelId(id: string): ModelRef {
  const slash = id.indexOf('/');
  if (slash < 0) return { toolId: id };
  const model = id.slice(slash + 1);
  return model ? { toolId: id.slice(0, slash), model } : { toolId: id.slice(0, slash) };
}
