import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.js';

export const ToolType = StringEnum(['agent', 'runtime'] as const);
export type ToolType = Static<typeof ToolType>;

export const CAPABILITY_VALUES = [
  'agent-task',
  'code-analysis',
  'code-edit',
  'chat',
  'health-check',
  'completion',
  'model-list',
  'vision',
] as const;
/** The spec's capabilities, plus `vision`: the tool (with its default model) takes image inputs. */
export const Capability = StringEnum(CAPABILITY_VALUES);
export type Capability = (typeof CAPABILITY_VALUES)[number];

/** An element of `tools` in the discover response. */
export const Tool = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: ToolType,
  available: Type.Boolean(),
  version: Type.Optional(Type.String({ description: 'Version text of the installed tool; absent when it is not installed' })),
  capabilities: Type.Array(Capability),
  models: Type.Array(Type.String()),
  defaultModel: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String({ description: 'Why the tool is not available' })),
  unknown: Type.Optional(
    Type.Array(StringEnum(['models', 'defaultModel', 'capabilities'] as const), {
      description:
        'Fields the last probe could not fill (and no earlier probe had): unknown, not "none"; a chat may still try (an image to a model whose capabilities are unknown)',
    }),
  ),
  features: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'What the tool can do beyond plain chat (sessions, structured output, images, ...)',
    }),
  ),
});
export type Tool = Static<typeof Tool>;
