import { nativeSchema, type NativeSchema } from '@toolbridge/adapter-kit';

export { nativeSchema, type NativeSchema };

/** The answer's JSON text from the tool's input (unwrapped when the schema was wrapped). */
export function structuredText(input: unknown, wrapped: boolean): string | undefined {
  if (input === undefined) return undefined;
  if (!wrapped) return JSON.stringify(input);
  const value = typeof input === 'object' && input !== null ? (input as { value?: unknown }).value : undefined;
  return value === undefined ? JSON.stringify(input) : JSON.stringify(value);
}
