import { InvalidArgumentError, NoSuchModelError, type ProviderV4 } from '@ai-sdk/provider';
import {
  closeDefaultToolbridge,
  createToolbridge as createLibrary,
  getDefaultToolbridge,
  parseModelId,
  type Toolbridge,
  type ToolbridgeOptions,
} from 'toolbridge';
import { ToolbridgeLanguageModel } from './model.js';
import type { ToolbridgeCallSettings, ToolbridgeFallbackSettings } from './settings.js';

export interface ToolbridgeProviderSettings {
  /**
   * The Toolbridge instance to run calls on. Default: one this provider creates from `options` on
   * first use (and ends with `close()`); the default `toolbridge` provider uses the library's
   * process-wide instance.
   */
  instance?: Toolbridge;
  /** Options for the instance this provider creates: adapters, env, config, concurrency, sessions. */
  options?: ToolbridgeOptions;
  /** Defaults for every model of this provider (a model's own settings and `providerOptions` win). */
  defaults?: ToolbridgeFallbackSettings;
}

export interface ToolbridgeProvider extends ProviderV4 {
  /** A tool as a model: `'claude-code'`, `'ollama/qwen3:14b'`, `'opencode/anthropic/claude-sonnet-4-5'` (the bridge's `/v1` ids). */
  (modelId: string, settings?: ToolbridgeCallSettings): ToolbridgeLanguageModel;
  languageModel(modelId: string, settings?: ToolbridgeCallSettings): ToolbridgeLanguageModel;
  /**
   * Several tools as one model: the first that answers wins, with `retries` per tool and
   * `perAttemptTimeoutMs`; tools that are not installed, logged out or out of quota are skipped
   * without starting anything. Entries are tool ids (each tool uses its configured model).
   */
  fallback(toolIds: readonly string[], settings?: ToolbridgeFallbackSettings): ToolbridgeLanguageModel;
  /** The Toolbridge instance the models run on (discover, health, sessions, config). */
  readonly toolbridge: Toolbridge;
  /** Ends the instance this provider created (killing running tools); a given `instance` is left to its owner. */
  close(): Promise<void>;
}

/** A Toolbridge provider for the AI SDK: every tool on this machine, alone or as a fallback chain. */
export function createToolbridge(settings: ToolbridgeProviderSettings = {}): ToolbridgeProvider {
  let owned: Toolbridge | undefined;
  const instance = () => settings.instance ?? (owned ??= createLibrary(settings.options));
  return buildProvider(instance, settings.defaults ?? {}, async () => {
    const current = owned;
    owned = undefined;
    await current?.close();
  });
}

function buildProvider(instance: () => Toolbridge, defaults: ToolbridgeFallbackSettings, close: () => Promise<void>): ToolbridgeProvider {
  const knownTools = () => instance().registry.toolIds.join(', ');

  const languageModel = (modelId: string, settings: ToolbridgeCallSettings = {}) => {
    const { toolId, model } = parseModelId(String(modelId));
    if (!instance().registry.has(toolId)) {
      throw new NoSuchModelError({
        modelId,
        modelType: 'languageModel',
        message: `Toolbridge has no tool "${toolId.slice(0, 100)}" (known tools: ${knownTools()}); model ids are <toolId> or <toolId>/<model>`,
      });
    }
    return new ToolbridgeLanguageModel(modelId, { kind: 'tool', toolId, model, settings: { ...defaults, ...settings } }, instance);
  };

  const fallback = (toolIds: readonly string[], settings: ToolbridgeFallbackSettings = {}) => {
    if (!Array.isArray(toolIds) || toolIds.length === 0 || !toolIds.every((id) => typeof id === 'string' && id !== '')) {
      throw new InvalidArgumentError({ argument: 'toolIds', message: 'toolbridge.fallback() takes a non-empty array of tool ids' });
    }
    for (const id of toolIds) {
      const { toolId, model } = parseModelId(id);
      if (model !== undefined) {
        throw new InvalidArgumentError({
          argument: 'toolIds',
          message: `toolbridge.fallback() takes tool ids, not models ("${id.slice(0, 100)}"): each tool answers with its configured model (e.g. configure({ ollamaModel: '${model.slice(0, 60)}' }))`,
        });
      }
      if (!instance().registry.has(toolId)) {
        throw new NoSuchModelError({
          modelId: id,
          modelType: 'languageModel',
          message: `Toolbridge has no tool "${id.slice(0, 100)}" (known tools: ${knownTools()})`,
        });
      }
    }
    const providers = [...new Set(toolIds)];
    return new ToolbridgeLanguageModel(
      providers.join(','),
      { kind: 'fallback', providers, settings: { ...defaults, ...settings } },
      instance,
    );
  };

  const noSuch = (modelType: 'embeddingModel' | 'imageModel') => (modelId: string) => {
    throw new NoSuchModelError({ modelId, modelType, message: `Toolbridge offers language models only (no ${modelType} "${modelId}")` });
  };

  const provider = Object.assign((modelId: string, settings?: ToolbridgeCallSettings) => languageModel(modelId, settings), {
    specificationVersion: 'v4' as const,
    languageModel,
    fallback,
    embeddingModel: noSuch('embeddingModel'),
    imageModel: noSuch('imageModel'),
    close,
  });
  // A getter: the default provider's instance is created on first use and may be replaced after close().
  return Object.defineProperty(provider, 'toolbridge', { get: instance, enumerable: true }) as typeof provider & {
    readonly toolbridge: Toolbridge;
  };
}

/**
 * The default provider, on the library's process-wide instance (created on first use). Its
 * `close()` is the library's `closeDefaultToolbridge()`: the next call starts a fresh instance.
 */
export const toolbridge: ToolbridgeProvider = buildProvider(getDefaultToolbridge, {}, closeDefaultToolbridge);
