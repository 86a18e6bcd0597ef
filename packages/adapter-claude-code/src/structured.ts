import type { ResponseFormat } from '@toolbridge/core';

/**
 * How a requested format reaches Claude Code's `StructuredOutput` tool. The tool's input is a
 * Messages API tool input, which must be an object: an object schema goes as it is (the model
 * sees it verbatim); anything else (an array, a string, `{type:'json'}`'s any value) is wrapped
 * as the `value` property of an object and unwrapped from the answer.
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

/** The answer's JSON text from the tool's input (unwrapped when the schema was wrapped). */
export function structuredText(input: unknown, wrapped: boolean): string | undefined {
  if (input === undefined) return undefined;
  if (!wrapped) return JSON.stringify(input);
  const value = typeof input === 'object' && input !== null ? (input as { value?: unknown }).value : undefined;
  return value === undefined ? JSON.stringify(input) : JSON.stringify(value);
}
