import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Helpers for the wire schemas. Every shape a caller sends or receives is declared once, as a
 * JSON Schema built with TypeBox; its TypeScript type is derived from it (`Static`). The bridge
 * validates with these objects, publishes them in `/openapi.json`, and the dashboard reads the
 * derived types, so none of them can drift from the others.
 */

/** `string | T[]` as one `type` list: ajv then names the actual problem, not "must match anyOf". */
export function StringOrArray<T extends TSchema>(items: T, options: { minItems?: number; maxItems?: number } = {}) {
  return Type.Unsafe<string | Static<T>[]>({ type: ['string', 'array'], items, ...options });
}

/** A union of objects told apart by their `type` field (ajv's `discriminator`: errors name the right branch). */
export function TaggedUnion<T extends TSchema[]>(variants: [...T]) {
  return Type.Unsafe<Static<T[number]>>({ type: 'object', discriminator: { propertyName: 'type' }, oneOf: variants });
}

/** A string from a fixed set, as `enum` (ajv then says "must be one of ..."), typed as the union of its values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const IsoTime = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });

/** Integer token counts: `input_tokens`, `output_tokens`, `cached_input_tokens`, `reasoning_output_tokens`, ... */
export const Usage = Type.Record(Type.String(), Type.Integer());
export type Usage = Static<typeof Usage>;
