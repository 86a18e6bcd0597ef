import type { ResponseFormat } from '@toolbridge/core';

/**
 * How a requested format reaches Qwen Code's `structured_output` tool, whose parameters must be an
 * object: an object schema goes as it is; anything else is wrapped as the `value` property of an
 * object and unwrapped from the answer.
 */
export interface NativeSchema {
  schema: Record<string, unknown>;
  wrapped: boolean;
}

export function nativeSchema(format: ResponseFormat): NativeSchema {
  if (format.type === 'json_schema' && format.schema.type === 'object') return { schema: format.schema, wrapped: false };
  const value = format.type === 'json_schema' ? format.schema : {};
  return { schema: { type: 'object', properties: { value }, required: ['value'], additionalProperties: false }, wrapped: true };
}

/** The answer's JSON text (unwrapped when the schema was wrapped). */
export function unwrapAnswer(text: string, wrapped: boolean): string {
  if (!wrapped) return text;
  try {
    const v = JSON.parse(text) as { value?: unknown };
    return typeof v === 'object' && v !== null && v.value !== undefined ? JSON.stringify(v.value) : text;
  } catch {
    return text;
  }
}
