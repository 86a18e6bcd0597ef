import type { ResponseFormat } from '@toolbridge/core';

/**
 * How a requested format reaches a CLI's answer tool (Claude Code's `StructuredOutput`, Qwen
 * Code's `structured_output`), whose input must be an object: an object schema goes as it is (the
 * model sees it verbatim); anything else (an array, a string, `{type:'json'}`'s any value) is
 * wrapped as the `value` property of an object and unwrapped from the answer.
 */
export interface NativeSchema {
  schema: Record<string, unknown>;
  wrapped: boolean;
}

export function nativeSchema(format: ResponseFormat): NativeSchema {
  if (format.type === 'json_schema' && format.schema.type === 'object') return { schema: format.schema, wrapped: false };
  const value = format.type === 'json_schema' ? format.schema : {};
  return {
    schema: { type: 'object', properties: { value }, required: ['value'], additionalProperties: false },
    wrapped: true,
  };
}
